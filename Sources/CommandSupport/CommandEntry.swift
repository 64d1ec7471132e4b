import ArgumentParser
import Headend

extension AsyncParsableCommand {
    /// ArgumentParser's entry point, after the allocator is set up for a process of many
    /// threads: the `main` of `flipbox` and of `flipbox-lab`.
    public static func runAsRoot() async {
        ProcessResources.limitAllocatorArenas()
        do {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
