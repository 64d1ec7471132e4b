import FlipboxCore
import Testing

/// Reading `Authorization: Bearer TOKEN` and comparing tokens.
@Suite struct BearerTokenTests {
    @Test func readsOnlyABearerHeaderWithAToken() {
        #expect(BearerToken.parse("Bearer s3cret") == "s3cret")
        #expect(BearerToken.parse("bearer   s3cret \t") == "s3cret")
        #expect(BearerToken.parse("Basic dXNlcjpwYXNz") == nil)
        #expect(BearerToken.parse("Bearer") == nil)
        #expect(BearerToken.parse("Bearer    ") == nil)
        #expect(BearerToken.parse(nil) == nil)
    }

    @Test func matchesOnlyTheSameToken() {
        #expect(BearerToken.matches("s3cret", "s3cret"))
        #expect(!BearerToken.matches("s3cret", "s3creT"))
        #expect(!BearerToken.matches("s3cret", "s3cret2"))
        #expect(!BearerToken.matches("", "x"))
        #expect(BearerToken.matches("", ""))
    }
}
