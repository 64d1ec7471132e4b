import Foundation

/// Finds the mode-setting devices (`cardN`) in a directory and reads each one.
public enum DisplayProbe {
    /// The devices in `directory` in number order (`card0` before `card10`), and a problem for
    /// each one that could not be read. Opens and closes each device; safe while kmssink runs.
    public static func cards(in directory: String = "/dev/dri") -> (cards: [DisplayCard], problems: [DisplayError]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix("card"), let n = Int(name.dropFirst(4)) else { return nil }
                return (n, name)
            }
            .sorted { $0.0 < $1.0 }
        var cards: [DisplayCard] = [], problems: [DisplayError] = []
        for (_, name) in names {
            switch DRMSyscalls.probe(path: (directory as NSString).appendingPathComponent(name)) {
            case .success(let card): cards.append(card)
            case .failure(let problem): problems.append(problem)
            }
        }
        return (cards, problems)
    }

    /// Probes `directory` and chooses as `DisplayChoice.choose` does.
    public static func choose(in directory: String = "/dev/dri", connectorName: String? = nil,
                              mode: ModeRequest) throws(DisplayError) -> DisplayChoice {
        let found = cards(in: directory)
        return try DisplayChoice.choose(cards: found.cards, connectorName: connectorName, mode: mode,
                                        problems: found.problems, directory: directory)
    }
}
