// `Failure<Code>` and `FailureKind` live below every module (in Failures); whatever imports
// Lineup sees them as before.
@_exported import Failures
