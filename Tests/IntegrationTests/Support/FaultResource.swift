import CZlib
import Foundation

/// The bytes a `FaultServer` route serves, read on demand by range so that tens of MB stream
/// without being built in memory; with the validators (`ETag`, `Last-Modified`) sent for it.
struct FaultResource: Sendable {
    let size: Int
    /// A quoted entity tag (`"abc"` or `W/"abc"`), or nil to send none.
    var etag: String?
    var lastModified: Date?
    var contentType = "application/octet-stream"
    private let reader: @Sendable (Range<Int>) -> Data

    /// A resource of `size` bytes whose bytes in a range `reader` returns (exactly `range.count` of them).
    init(size: Int, etag: String? = nil, lastModified: Date? = FaultResource.defaultLastModified,
         reader: @escaping @Sendable (Range<Int>) -> Data) {
        self.size = size
        self.etag = etag ?? FaultResource.freshETag(size: size)
        self.lastModified = lastModified
        self.reader = reader
    }

    /// `Mon, 01 Jan 2024 00:00:00 GMT`, a fixed date so tests can send it back in `If-Range`.
    static let defaultLastModified = Date(timeIntervalSince1970: 1_704_067_200)

    /// Serves `data`.
    static func data(_ data: Data, etag: String? = nil) -> FaultResource {
        FaultResource(size: data.count, etag: etag) { range in
            data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
        }
    }

    static func text(_ text: String, etag: String? = nil) -> FaultResource {
        var resource = data(Data(text.utf8), etag: etag)
        resource.contentType = "text/plain"
        return resource
    }

    /// `size` deterministic pseudo-random bytes: a 65,521-byte (prime) block from `seed`, repeated.
    /// Equal seeds give equal bytes; the block costs 64 KiB whatever the size.
    static func pattern(size: Int, seed: UInt64 = 1, etag: String? = nil) -> FaultResource {
        let block = patternBlock(seed: seed)
        return FaultResource(size: size, etag: etag) { range in
            var out = Data(count: range.count)
            out.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                block.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
                    var written = 0
                    var offset = range.lowerBound % block.count
                    while written < range.count {
                        let n = min(block.count - offset, range.count - written)
                        (target.baseAddress! + written).copyMemory(from: source.baseAddress! + offset, byteCount: n)
                        written += n
                        offset = 0
                    }
                }
            }
            return out
        }
    }

    /// Serves the file at `url` as it is when read (its size now, its bytes at each request).
    static func file(_ url: URL, etag: String? = nil) throws -> FaultResource {
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        return FaultResource(size: size, etag: etag) { range in
            guard let handle = try? FileHandle(forReadingFrom: url) else { return Data(count: range.count) }
            defer { try? handle.close() }
            try? handle.seek(toOffset: UInt64(range.lowerBound))
            var data = (try? handle.read(upToCount: range.count)) ?? Data()
            if data.count < range.count { data.append(Data(count: range.count - data.count)) }
            return data
        }
    }

    /// The bytes in `range` (clamped to `0..<size`).
    func bytes(in range: Range<Int>) -> Data {
        let clamped = range.clamped(to: 0..<size)
        return clamped.isEmpty ? Data() : reader(clamped)
    }

    /// All the bytes, in memory (for expectations; a server streams them instead).
    var allBytes: Data { bytes(in: 0..<size) }

    /// CRC-32 (zlib) of all the bytes, computed in 1 MiB pieces; `crc32Hex` as a manifest wants it.
    var crc32: UInt32 {
        var crc = CZlib.crc32(0, nil, 0)
        var offset = 0
        while offset < size {
            let piece = bytes(in: offset..<min(offset + 1 << 20, size))
            crc = piece.withUnsafeBytes { CZlib.crc32_z(crc, $0.bindMemory(to: Bytef.self).baseAddress, z_size_t($0.count)) }
            offset += piece.count
        }
        return UInt32(crc)
    }

    var crc32Hex: String { String(format: "%08x", crc32) }

    /// The same resource with byte `offset` flipped (XOR 0xFF) and the same validators, as a
    /// server that corrupts data silently would serve it.
    func flippingByte(at offset: Int) -> FaultResource {
        precondition((0..<size).contains(offset), "offset \(offset) outside 0..<\(size)")
        let original = reader
        var copy = FaultResource(size: size, etag: etag, lastModified: lastModified) { range in
            var data = original(range)
            if range.contains(offset) {
                let index = data.startIndex + offset - range.lowerBound
                data[index] ^= 0xFF
            }
            return data
        }
        copy.contentType = contentType
        return copy
    }

    func with(etag: String?) -> FaultResource {
        var copy = self
        copy.etag = etag
        return copy
    }

    func with(lastModified: Date?) -> FaultResource {
        var copy = self
        copy.lastModified = lastModified
        return copy
    }

    /// An HTTP-date (IMF-fixdate), e.g. `Mon, 01 Jan 2024 00:00:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static func freshETag(size: Int) -> String {
        "\"\(String(UInt32.random(in: 0...UInt32.max), radix: 16))-\(String(size, radix: 16))\""
    }

    private static func patternBlock(seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var block = Data(count: 65_521)
        block.withUnsafeMutableBytes { bytes in
            for index in 0..<bytes.count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        return block
    }
}
