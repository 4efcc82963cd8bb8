/// Which version of a file a partial download holds: the URL it came from and the
/// server's validators, kept beside the partial so that the next attempt or run
/// continues it with `Range` + `If-Range` only when it is the same version.
/// The cache stores these fields without reading them.
package struct ResumeRecord: Equatable {
    package var url: String
    package var etag: String?
    package var lastModified: String?
    /// For a file fetched in segments: each segment's range and how many of its bytes are on disk.
    package var segments: [SegmentProgress]?
    /// For a delta: the bytes of the file copied from its old version into the partial,
    /// which the segments count as done. A delta's record may name no version yet: its first
    /// response names it, as a lead segment's does.
    package var reused: Int64?

    /// One segment of a partial: its byte range in the file and the bytes done from its start.
    package struct SegmentProgress: Equatable {
        package var range: Range<Int64>
        package var done: Int64

        package init(range: Range<Int64>, done: Int64) {
            self.range = range
            self.done = done
        }
    }

    package init(url: String, etag: String?, lastModified: String?, segments: [SegmentProgress]? = nil, reused: Int64? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.segments = segments
        self.reused = reused
    }

    /// The validator to send in `If-Range`: the strong ETag, else Last-Modified.
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// The fields as the cache keeps them.
    package var fields: [(key: String, value: String?)] {
        [("url", url), ("etag", etag), ("last-modified", lastModified),
         ("segments", segments.map { $0.map { "\($0.range.lowerBound)-\($0.range.upperBound)+\($0.done)" }.joined(separator: ",") }),
         ("reused", reused.map { "\($0)" })]
    }

    /// Whether `head` names the same version as this record: no validator both carry differs.
    func sameVersion(as head: ResponseHead) -> Bool {
        (etag == nil || head.etag == nil || etag == head.etag)
            && (lastModified == nil || head.lastModified == nil || lastModified == head.lastModified)
    }

    /// `segments` when they tile `0..<size` in order with each `done` within its range; nil otherwise,
    /// which only costs a fresh start.
    func segments(tiling size: Int64) -> [SegmentProgress]? {
        guard let segments, !segments.isEmpty else { return nil }
        var next: Int64 = 0
        for segment in segments {
            guard segment.range.lowerBound == next, !segment.range.isEmpty, (0...segment.range.count).contains(Int(segment.done))
            else { return nil }
            next = segment.range.upperBound
        }
        return next == size ? segments : nil
    }

    /// The record in `fields`; nil without a URL, which only costs a fresh start.
    package init?(fields: [String: String]) {
        guard let url = fields["url"] else { return nil }
        self.init(
            url: url, etag: fields["etag"], lastModified: fields["last-modified"], segments: fields["segments"].flatMap(Self.parseSegments),
            reused: fields["reused"].flatMap { Int64($0) })
    }

    /// `lower-upper+done,…`; nil for anything else.
    private static func parseSegments(_ text: String) -> [SegmentProgress]? {
        var segments: [SegmentProgress] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let rangeAndDone = item.split(separator: "+", omittingEmptySubsequences: false)
            guard rangeAndDone.count == 2, let done = Int64(rangeAndDone[1]) else { return nil }
            let bounds = rangeAndDone[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let lower = Int64(bounds[0]), let upper = Int64(bounds[1]), lower <= upper else { return nil }
            segments.append(SegmentProgress(range: lower..<upper, done: done))
        }
        return segments
    }

    /// Whether the bytes kept with `fields` may be continued: only with a validator for `If-Range`,
    /// or as a delta's segments, whose first response names the version.
    package static func canResume(_ fields: [String: String]) -> Bool {
        guard let record = ResumeRecord(fields: fields) else { return false }
        return record.ifRange != nil || (record.isDelta && record.segments != nil)
    }

    /// Whether the partial was assembled from an old version of the file (a delta).
    package var isDelta: Bool { reused != nil }
}
