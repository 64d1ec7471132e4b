/// What a test's own scaffolding could not do (a helper server that did not start, a box that
/// did not play, a snapshot it could not fetch): not an error of the code under test.
public struct TestFailure: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
