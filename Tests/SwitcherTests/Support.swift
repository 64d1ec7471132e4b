import Switcher

/// `count` flips of `request`, `spacing` apart (a held key), all in flight together; their results.
func keyRepeat(_ player: Player, _ request: FlipRequest, count: Int, spacing: Duration) async -> [FlipResult] {
    await withTaskGroup(of: FlipResult.self) { group in
        for i in 0..<count {
            group.addTask {
                try? await Task.sleep(for: spacing * i)
                return await player.flip(request)
            }
        }
        var all: [FlipResult] = []
        for await r in group { all.append(r) }
        return all
    }
}

/// Polls `condition` every 50 ms for up to `seconds`.
func waitUntil(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
