import Testing
@testable import Lineup
@Test func smoke() { #expect(true) }
