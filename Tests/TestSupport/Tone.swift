import Foundation

/// Power of `frequency` in interleaved stereo 48 kHz samples (Goertzel on the left channel),
/// normalised by length: a sine of amplitude A (full scale 1) over N samples gives about A²·N/4, silence 0.
public func tonePower(_ samples: [Int16], _ frequency: Double) -> Double {
    let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) / 32768 }
    let k = 2 * cos(2 * Double.pi * frequency / 48000)
    var s1 = 0.0, s2 = 0.0
    for x in left {
        let s = x + k * s1 - s2
        s2 = s1
        s1 = s
    }
    return (s1 * s1 + s2 * s2 - k * s1 * s2) / Double(max(1, left.count))
}
