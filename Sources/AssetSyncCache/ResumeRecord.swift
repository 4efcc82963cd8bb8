package import AssetSyncModel

/// What a partial download was, kept beside it in `partial/<name>.resume`,
/// so that the next attempt or run can continue it with `Range` + `If-Range`
/// only when it is the same file from the same version on the server.
package struct ResumeRecord: Equatable {
    package static let header = "assetsync-resume 1"
    /// The most bytes a record may have: a path, a URL, two validators and numbers fit many times over.
    package static let sizeLimit = 64 << 10

    package var path: String
    package var url: String
    package var size: Int64
    package var crc32: UInt32
    package var etag: String?
    package var lastModified: String?
    /// Bytes written when the record was saved; the partial file's own size is authoritative after a crash.
    package var bytesWritten: Int64

    /// The validator to send in `If-Range`: the strong ETag, else Last-Modified.
    package var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    package func matches(_ entry: ManifestEntry) -> Bool {
        path == entry.path && size == entry.size && crc32 == entry.crc32
    }

    package var encoded: String {
        var lines = [Self.header, "path \(path)", "url \(url)", "size \(size)", "crc32 \(CRC32Text.hex(crc32))"]
        if let etag { lines.append("etag \(etag)") }
        if let lastModified { lines.append("last-modified \(lastModified)") }
        lines.append("written \(bytesWritten)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses a record; nil for anything torn, foreign or malformed, which only costs a fresh start.
    package init?(decoding text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(Self.header), lines.last == "" else { return nil }
        lines = Array(lines.dropFirst().dropLast())
        var fields: [String: String] = [:]
        for line in lines {
            guard let space = line.firstIndex(of: " ") else { return nil }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        guard let path = fields["path"], let url = fields["url"], let size = fields["size"].flatMap({ Int64($0) }),
              let crc = fields["crc32"].flatMap({ UInt32($0, radix: 16) }),
              let written = fields["written"].flatMap({ Int64($0) })
        else { return nil }
        self.init(
            path: path, url: url, size: size, crc32: crc, etag: fields["etag"], lastModified: fields["last-modified"],
            bytesWritten: written)
    }

    package init(path: String, url: String, size: Int64, crc32: UInt32, etag: String?, lastModified: String?, bytesWritten: Int64) {
        self.path = path
        self.url = url
        self.size = size
        self.crc32 = crc32
        self.etag = etag
        self.lastModified = lastModified
        self.bytesWritten = bytesWritten
    }
}
