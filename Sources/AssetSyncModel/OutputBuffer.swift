/// Output text built as UTF-8 bytes in one reusable allocation, and handed
/// out as a `String` per chunk: a plan of a million lines costs a few
/// thousand `String`s instead of several per line.
///
/// The caller owns the memory: call `deallocate()` when done.
package struct OutputBuffer {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    package private(set) var count = 0

    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    package func deallocate() { start.deallocate() }

    /// The bytes so far as a `String` (they are valid UTF-8), leaving the buffer empty.
    package mutating func take() -> String {
        defer { count = 0 }
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var size = capacity * 2
        while size < needed { size *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        bigger.update(from: start, count: count)
        start.deallocate()
        start = bigger
        capacity = size
    }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let source = bytes.baseAddress { (start + count).update(from: source, count: bytes.count) }
        count += bytes.count
    }

    @inline(__always)
    package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// `value` in decimal, as `String(value)` writes it.
    package mutating func append(decimal value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            start[count] = UInt8(ascii: "-")
            count += 1
        }
        magnitude = value.magnitude
        var index = count + digits - 1
        repeat {
            start[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        count += digits
    }
}
