import CGStreamer

extension Buffer {
    /// The energy of a buffer of signed 16-bit samples (any channel count, interleaved): the sum
    /// of their squares, on a full scale of 1, and how many there are.
    public func s16Energy() -> (sumOfSquares: Double, samples: Int) {
        withBytes { raw -> (Double, Int) in
            let samples = raw.bindMemory(to: Int16.self)
            var sum = 0.0
            for s in samples {
                let v = Double(s) / 32768
                sum += v * v
            }
            return (sum, samples.count)
        } ?? (0, 0)
    }

    /// A new buffer with every signed 16-bit sample multiplied by `gain`, clipped to the range.
    public func s16Scaled(by gain: Double) -> Buffer {
        let scaled: [UInt8] = withBytes { raw -> [UInt8] in
            let samples = raw.bindMemory(to: Int16.self)
            var out = [UInt8](repeating: 0, count: samples.count * 2)
            out.withUnsafeMutableBytes { dest in
                let o = dest.bindMemory(to: Int16.self)
                for (i, s) in samples.enumerated() {
                    o[i] = Int16(max(-32768, min(32767, (Double(s) * gain).rounded())))
                }
            }
            return out
        } ?? []
        return Buffer(bytes: scaled)
    }
}
