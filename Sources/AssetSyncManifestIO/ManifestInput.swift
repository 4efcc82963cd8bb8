package import AssetSyncModel
import AssetSyncSystem
import CZlib
import Glibc

/// The bytes of a manifest from a file or an open descriptor (the CLI's standard input),
/// inflated when they start with gzip's magic bytes, and cut off at `limit` decompressed bytes.
package final class ManifestInput {
    /// The most decompressed bytes a manifest may have (documented in the README).
    static let defaultLimit = Manifest.sizeLimit

    package let name: String
    package let limit: Int64
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var raw = [UInt8](repeating: 0, count: 64 << 10)
    private var rawStart = 0
    private var rawEnd = 0
    private var rawEOF = false
    private var inflater: Inflater?
    /// Decompressed bytes that were peeked at but not yet read.
    private var pending: [UInt8] = []
    private(set) var bytesProduced: Int64 = 0
    /// How many bytes the manifest has, when that is known up front: a plain
    /// (not gzip-compressed) regular file. A hint for sizing, never a limit.
    package private(set) var sizeHint: Int64?

    /// Opens `path`; errors name it `displayName` when given.
    package convenience init(path: String, displayName: String? = nil, limit: Int64 = ManifestInput.defaultLimit) throws(ManifestError) {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw ManifestError(manifest: path, problem: "cannot open the manifest: \(SystemError("open").reason)")
        }
        try self.init(descriptor: opened, owned: true, name: displayName ?? path, limit: limit)
    }

    /// Reads the open descriptor `fd`, named `name` in errors; closes it when `owned`.
    package init(descriptor fd: Int32, owned: Bool, name: String, limit: Int64 = ManifestInput.defaultLimit) throws(ManifestError) {
        self.name = name
        self.limit = limit
        self.fd = fd
        ownsDescriptor = owned
        do {
            try fillRaw(atLeast: 2)
        } catch {
            if ownsDescriptor { close(fd) }
            throw error
        }
        if rawEnd - rawStart >= 2, raw[rawStart] == 0x1F, raw[rawStart + 1] == 0x8B {
            inflater = Inflater()
        } else {
            var status = stat()
            if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG { sizeHint = Int64(status.st_size) }
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// The first byte that is not white space or a leading UTF-8 byte order mark, without consuming anything.
    /// Each byte is looked at once and at most `maximumLeadingBlank` blank bytes are held: a gzip bomb of
    /// spaces once took time quadratic in its size here.
    func firstSignificantByte() throws(ManifestError) -> UInt8? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ended = false
        /// Nil until the byte order mark can be told apart; then how many leading bytes are known to be blank.
        var scanned: Int?
        while true {
            if scanned == nil, pending.count >= Self.byteOrderMark.count || ended {
                scanned = pending.starts(with: Self.byteOrderMark) ? Self.byteOrderMark.count : 0
            }
            if let start = scanned {
                if let index = pending[start...].firstIndex(where: { !Self.isBlank($0) }) { return pending[index] }
                if ended { return nil }
                guard pending.count <= Self.maximumLeadingBlank else {
                    throw failure("the manifest starts with more than \(Self.maximumLeadingBlank) bytes of white space")
                }
                scanned = pending.count
            }
            let count = try chunk.withMutableBytes { buffer throws(ManifestError) in try produce(into: buffer) }
            ended = count == 0
            pending += chunk[0..<count]
        }
    }

    /// As many blank bytes as the XML reader allows in a row.
    static let maximumLeadingBlank = XMLMarkupScanner.maximumBlankRun

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Copies up to `buffer.count` decompressed bytes; 0 means the end.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ManifestError) -> Int {
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            pending.removeFirst(count)
            return count
        }
        return try produce(into: buffer)
    }

    private func produce(into buffer: UnsafeMutableRawBufferPointer) throws(ManifestError) -> Int {
        let count: Int
        if inflater != nil {
            count = try inflate(into: buffer)
        } else {
            if rawStart == rawEnd { try fillRaw(atLeast: 1) }
            count = min(buffer.count, rawEnd - rawStart)
            raw.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[rawStart..<rawStart + count])) }
            rawStart += count
        }
        bytesProduced += Int64(count)
        guard bytesProduced <= limit else {
            let what = inflater == nil ? "" : " once decompressed"
            throw failure("the manifest is larger than the \(ByteCount.human(limit)) limit\(what)")
        }
        return count
    }

    private func inflate(into buffer: UnsafeMutableRawBufferPointer) throws(ManifestError) -> Int {
        guard let inflater else { return 0 }
        while true {
            if inflater.finished {
                if rawEnd - rawStart < 2 { try fillRaw(atLeast: 2) }
                if rawStart == rawEnd { return 0 }
                guard rawEnd - rawStart >= 2, raw[rawStart] == 0x1F, raw[rawStart + 1] == 0x8B else {
                    throw failure("unexpected data after the end of the gzip stream")
                }
                inflater.reset()
            }
            if rawStart == rawEnd { try fillRaw(atLeast: 1) }
            let hadInput = rawStart < rawEnd
            let (consumed, produced, status) = raw.withUnsafeMutableBytes { rawBuffer in
                inflater.step(
                    input: UnsafeMutableRawBufferPointer(rebasing: rawBuffer[rawStart..<rawEnd]), output: buffer)
            }
            rawStart += consumed
            if produced > 0 { return produced }
            switch status {
            case Z_STREAM_END:
                continue
            case Z_OK, Z_BUF_ERROR:
                if !hadInput { throw failure("the gzip data is truncated") }
            default:
                throw failure("the gzip data is corrupt (\(inflater.message ?? "zlib error \(status)"))")
            }
        }
    }

    /// Reads until at least `count` raw bytes are buffered or the input ends.
    private func fillRaw(atLeast count: Int) throws(ManifestError) {
        if rawStart > 0 {
            // In place: replaceSubrange with a slice of the same array copied the whole buffer.
            let (start, end) = (rawStart, rawEnd)
            raw.withUnsafeMutableBytes { buffer in
                if end > start { memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start) }
            }
            rawEnd -= rawStart
            rawStart = 0
        }
        while rawEnd - rawStart < count, !rawEOF {
            let got: Int
            do {
                got = try raw.withMutableBytes { buffer throws(SystemError) in
                    try FileDescriptor(fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[rawEnd...]))
                }
            } catch {
                throw failure("cannot read the manifest: \(error.reason)")
            }
            if got == 0 { rawEOF = true }
            rawEnd += got
        }
    }

    private func failure(_ problem: String) -> ManifestError {
        ManifestError(manifest: name, problem: problem)
    }
}

/// One zlib inflate stream set up for gzip members.
private final class Inflater {
    private var stream = z_stream()
    private(set) var finished = false

    init() {
        inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    }

    deinit { inflateEnd(&stream) }

    var message: String? { stream.msg.map { String(cString: $0) } }

    func reset() {
        inflateReset(&stream)
        finished = false
    }

    func step(
        input: UnsafeMutableRawBufferPointer, output: UnsafeMutableRawBufferPointer
    ) -> (consumed: Int, produced: Int, status: Int32) {
        stream.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_in = uInt(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(output.count)
        let status = CZlib.inflate(&stream, Z_NO_FLUSH)
        if status == Z_STREAM_END { finished = true }
        return (input.count - Int(stream.avail_in), output.count - Int(stream.avail_out), status)
    }
}
