import Foundation
import Glibc

/// I5's request check: a rerun against a healthy server fetches only what was missing. Take
/// `holdings()` just before the rerun, then give `checkRequests(_:holdings:)` the requests the server
/// answered during the rerun.
///
/// What counts as held is what the binary itself may continue (DESIGN.md §3–4, PartialFile and
/// ResumeRecord): a final path holding the manifest's bytes, or a partial
/// `.assetsync/partial/<name>.part` whose resume record `<name>.resume` is this entry's (header
/// `assetsync-resume 1`, then `key value` lines: `path`, `size`, `crc32`, `url`, and an ETag that is not
/// weak or a Last-Modified for `If-Range`). A record without `segments` vouches for the part's bytes from
/// zero to its size; one whose `segments` (`lower-upper+done,…`) tile the file vouches for the first
/// `done` bytes of each range. No slack is allowed for re-reading: a resume asks from exactly the first
/// byte not held (the part's size or `lower + done`; unaligned offsets are written through the page
/// cache, never rounded down), and the bytes a segment wrote past its recorded `done` are not vouched
/// for, so fetching them again is fetching what was missing.
///
/// A server that corrupts bytes can leave a record vouching for wrong bytes. The binary learns that
/// only from the file's CRC-32 once it is whole, and then downloads it afresh, as it must. Given the
/// true bytes (`holdings(trueBytes:)`), such an entry is `corrupt`: what it may fetch is what was
/// missing plus one whole download, and its vouched ranges may be fetched again.
extension RunInvariants {
    /// One request as the server logged it: the entry's path, the `Range` header, and the body bytes sent.
    struct Request: Equatable, CustomStringConvertible {
        var path: String
        var range: String?
        var bodyBytes: Int

        /// `line` of a server whose manifest base has the URL path `basePath` (e.g. `/`).
        init(_ line: AccessLogLine, basePath: String = "/") {
            let relative = line.path.hasPrefix(basePath) ? String(line.path.dropFirst(basePath.count)) : line.path
            self.init(path: relative.removingPercentEncoding ?? relative, range: line.range, bodyBytes: line.bodyBytesSent)
        }

        /// `request` to a `FaultServer` whose manifest base is its root.
        init(_ request: FaultRequest) {
            let relative = String(request.path.drop { $0 == "/" })
            self.init(path: relative.removingPercentEncoding ?? relative, range: request.range, bodyBytes: request.bodyBytesSent)
        }

        init(path: String, range: String?, bodyBytes: Int) {
            self.path = path
            self.range = range
            self.bodyBytes = bodyBytes
        }

        /// The bytes of the file the body carried: from the `Range` start (0 without one).
        var served: Range<Int> {
            let start = range.flatMap { header -> Int? in
                guard header.hasPrefix("bytes="), let dash = header.firstIndex(of: "-") else { return nil }
                return Int(header[header.index(header.startIndex, offsetBy: 6)..<dash])
            } ?? 0
            return start..<start + bodyBytes
        }

        var description: String { "GET \(path) (Range: \(range ?? "none"), \(bodyBytes) body bytes)" }
    }

    /// What DEST holds of one entry before a rerun.
    struct Holding: Equatable {
        /// The final path already holds the manifest's bytes.
        var complete = false
        /// Byte ranges of the file a valid resume record says its partial holds.
        var written: [Range<Int>] = []
        /// Some of the `written` bytes differ from the file's true bytes.
        var corrupt = false

        /// Bytes of an entry of `size` the rerun may fetch: what is still missing, and for a corrupt
        /// partial one whole download more.
        func missing(of size: Int) -> Int {
            complete ? 0 : size - written.reduce(0) { $0 + $1.count } + (corrupt ? size : 0)
        }
    }

    /// For every entry, what DEST holds of it now (take it just before the rerun). With `trueBytes`
    /// (the bytes of an entry's range, as the honest server has them), vouched bytes are compared with them.
    func holdings(trueBytes: ((_ path: String, _ range: Range<Int>) -> Data?)? = nil) -> [String: Holding] {
        let partial = dest + "/.assetsync/partial"
        var records: [String: (name: String, fields: [String: String])] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? [] where name.hasSuffix(".resume") {
            guard let data = FileManager.default.contents(atPath: partial + "/" + name), let text = String(data: data, encoding: .utf8),
                  let fields = Self.decodeResume(text), let path = fields["path"]
            else { continue }
            records[path] = (String(name.dropLast(".resume".count)), fields)
        }
        var holdings: [String: Holding] = [:]
        for (path, right) in entries {
            var holding = Holding()
            if let data = FileManager.default.contents(atPath: dest + "/" + path), Sandbox.kind(dest + "/" + path) == S_IFREG,
               Fingerprint(data) == right {
                holding.complete = true
            } else if let (name, fields) = records[path] {
                let part = partial + "/" + name + ".part"
                holding.written = Self.written(fields, part: part, entry: right)
                if let trueBytes, let handle = FileHandle(forReadingAtPath: part) {
                    holding.corrupt = holding.written.contains { range in
                        try? handle.seek(toOffset: UInt64(range.lowerBound))
                        let held = (try? handle.read(upToCount: range.count)) ?? Data()
                        return trueBytes(path, range).map { $0 != held } ?? false
                    }
                    try? handle.close()
                }
            }
            holdings[path] = holding
        }
        return holdings
    }

    /// A resume record's fields: `assetsync-resume 1`, then one `key value` line each, ending in a newline;
    /// nil for anything torn or foreign.
    static func decodeResume(_ text: String) -> [String: String]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "assetsync-resume 1", lines.last == "" else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst().dropLast() {
            guard let space = line.firstIndex(of: " ") else { return nil }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return fields
    }

    /// The ranges a record vouches for, for a partial at `part` (a regular file of one link), of `entry`.
    static func written(_ fields: [String: String], part: String, entry: Fingerprint) -> [Range<Int>] {
        var status = stat()
        guard fields["size"] == "\(entry.size)", fields["crc32"].flatMap({ UInt32($0, radix: 16) }) == UInt32(entry.crc32, radix: 16),
              fields["url"] != nil, fields["etag"].map({ !$0.hasPrefix("W/") }) ?? false || fields["last-modified"] != nil,
              lstat(part, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1,
              (1...entry.size).contains(Int(status.st_size))
        else { return [] }
        guard let text = fields["segments"] else { return [0..<Int(status.st_size)] }
        var segments: [Range<Int>] = []
        var next = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "+", omittingEmptySubsequences: false)
            let bounds = parts.first?.split(separator: "-", omittingEmptySubsequences: false) ?? []
            // Unparseable: the record reads as one without segments.
            guard parts.count == 2, bounds.count == 2, let lower = Int(bounds[0]), let upper = Int(bounds[1]), let done = Int(parts[1]),
                  lower <= upper
            else { return [0..<Int(status.st_size)] }
            // Not tiling the file in order, or a count outside its range: the binary starts from zero.
            guard lower == next, lower < upper, (0...upper - lower).contains(done) else { return [] }
            segments.append(lower..<lower + done)
            next = upper
        }
        return next == entry.size ? segments.filter { !$0.isEmpty } : []
    }

    /// I5's request check: no request for an entry whose final path held its bytes, none re-fetching
    /// bytes a valid resume record vouched for, and no more body bytes in all than were missing.
    func checkRequests(_ requests: [Request], holdings: [String: Holding]) -> [String] {
        var violations: [String] = []
        for request in requests {
            guard let holding = holdings[request.path] else {
                violations.append("I5: the rerun asked for '\(request.path)', which the manifest does not name: \(request)")
                continue
            }
            if holding.complete {
                violations.append("I5: the rerun fetched '\(request.path)', whose final path already held the manifest's bytes: \(request)")
                continue
            }
            for written in holding.written where !holding.corrupt && written.overlaps(request.served) {
                let again = max(written.lowerBound, request.served.lowerBound)..<min(written.upperBound, request.served.upperBound)
                violations.append(
                    "I5: the rerun fetched bytes \(again) of '\(request.path)' again, which its resume record says were written: \(request)")
            }
        }
        let fetched = requests.reduce(0) { $0 + $1.bodyBytes }
        let missing = entries.reduce(0) { $0 + (holdings[$1.key] ?? Holding()).missing(of: $1.value.size) }
        if fetched > missing {
            violations.append("I5: the rerun fetched \(fetched) body bytes, more than the \(missing) missing")
        }
        return violations
    }
}
