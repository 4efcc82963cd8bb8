/// Byte comparison without the C library: the model stays pure Swift.
package enum RawBytes {
    /// Whether the `count` bytes at `a` and at `b` are the same, compared eight at a time.
    @inline(__always)
    package static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset + 8 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }
}
