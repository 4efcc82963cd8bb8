import AssetSyncModel
import AssetSyncSystem

/// One large file fetched as several `Range` requests at once: a `Download` per segment, each
/// streaming into a segment view of the file's sink. It owns the decisions about the file as a
/// whole: the first segment's response decides whether the server allows segments (a 200, or
/// no validator to hold the segments to one version, makes the file one stream); every other
/// segment asks with `If-Range` and must name the same version; once every segment is in, their
/// CRCs join into the file's proof. Lives on the transfer thread, held by the engine until the
/// file is finished; segments other than the lead may receive on a second thread
/// (`SplitMultiplexer`), whose callbacks touch only their own download and `saveRecord`.
final class SegmentedFile {
    let file: any SegmentableSink
    let request: TransferEngine.Request
    /// The segments made so far: the lead first, the others in file order (a delta's lead is its
    /// first range to fetch, and its segments already copied follow it).
    private(set) var members: [Download] = []
    /// Ranges still to be made into segments once the lead's response allows it.
    private var unreleased: [Range<Int64>]
    /// Segments made since the engine last took them; it schedules them like any download.
    var released: [Download] = []
    /// The version every segment must be: named by the lead's response, or by the record resumed.
    private(set) var record: ResumeRecord?
    /// Retries counted for the file as a whole, as for a download in one stream.
    var attemptsOnURL = 0
    /// For a delta: the bytes copied from the file's old version, which no request fetches.
    let reused: Int64?
    /// The file is proven, failed or became one stream: its segments are over.
    var ended = false
    /// Held while the record is saved and while `Download.writtenInRecord` is read or set.
    private let recordLock = Monitor()
    private let options: TransferOptions
    private let health: SourceHealth
    private let handles: CurlEasyPool
    private let clock: () -> Double

    /// The ranges a file of `size` bytes is fetched as: up to `segments` (never more than `jobs`),
    /// each at least `segmentThreshold` bytes; one range when the file is smaller.
    static func ranges(size: Int64, options: TransferOptions) -> [Range<Int64>] {
        let threshold = max(1, options.segmentThreshold)
        let count = Int(min(Int64(max(1, min(options.segments, options.jobs))), max(1, size / threshold)))
        // Boundaries on whole mebibytes where the size allows, so that each segment's writes stay
        // block-aligned and can go past the page cache.
        let step = size / Int64(count) >= Self.boundary ? size / Int64(count) / Self.boundary * Self.boundary : size / Int64(count)
        return (0..<count).map { index in
            Int64(index) * step..<(index == count - 1 ? size : Int64(index + 1) * step)
        }
    }

    /// How many transfers `request` may run at once: its ranges; for a file with a chunk list, whose
    /// delta fetches its changed stretches as segments whatever its size, as many as segments allow;
    /// for a document, whose size is only a bound, one.
    static func transfers(of request: TransferEngine.Request, options: TransferOptions) -> Int {
        guard request.kind == .file else { return 1 }
        let ranges = ranges(size: request.entry.size, options: options).count
        return request.entry.chunks == nil ? ranges : max(ranges, min(options.segments, options.jobs))
    }

    /// The file as segments: continuing the segments its record names when they tile the file and
    /// carry a validator, or are a delta's (done where copied from the old version), else from zero. Nil when the file is fetched as one stream: too small,
    /// bytes on disk from one stream to continue, or a document.
    init?(
        request: TransferEngine.Request, sink: any DownloadSink, options: TransferOptions, health: SourceHealth,
        handles: CurlEasyPool, clock: @escaping () -> Double
    ) throws(SystemError) {
        guard request.kind == .file, let file = sink as? any SegmentableSink else { return nil }
        let ranges = Self.ranges(size: request.entry.size, options: options)
        let resumed = file.resumeFields.flatMap(ResumeRecord.init(fields:))
        let progress = resumed?.ifRange == nil && resumed?.isDelta != true ? nil : resumed?.segments(tiling: request.entry.size)
        if progress == nil {
            if file.offset > 0 || file.resumeFields != nil {
                guard resumed?.segments != nil || file.offset == 0 else { return nil }  // one stream's bytes continue as they are
                try file.restart()
            }
            guard ranges.count > 1 else { return nil }
        }
        self.file = file
        self.request = request
        self.options = options
        self.health = health
        self.handles = handles
        self.clock = clock
        reused = progress == nil ? nil : resumed?.reused
        if let progress, resumed?.ifRange == nil {
            // A delta before its first response: the copied ranges are done; the first range to fetch
            // leads, and its response names the version the other ranges then ask for.
            let toFetch = progress.filter { $0.done < $0.range.count }.map(\.range)
            unreleased = Array(toFetch.dropFirst())
            members = try toFetch.prefix(1).map { range throws(SystemError) in try make(range, done: 0) }
            for segment in progress where segment.done == segment.range.count {
                members.append(try make(segment.range, done: segment.done))
            }
            released = Array(members.dropFirst())
            for member in released { member.announced = true }
        } else if let progress {
            record = resumed
            unreleased = []
            for segment in progress { members.append(try make(segment.range, done: segment.done)) }
            released = Array(members.dropFirst())
            for member in released { member.announced = true }
        } else {
            file.preallocate()
            unreleased = Array(ranges.dropFirst())
            members = [try make(ranges[0], done: 0)]
        }
    }

    var lead: Download { members[0] }
    /// Whether the lead's response has yet to say that segments may follow.
    var awaitingLead: Bool { record == nil }

    /// A segment of `range`, asking the lead's source: the marks may have changed since the lead
    /// started, and the segments of one file must come from one server.
    private func make(_ range: Range<Int64>, done: Int64) throws(SystemError) -> Download {
        let sink = try file.segment(range, done: done)
        let segment = Download(
            entry: request.entry, action: request.action, sources: request.sources, health: health, sink: sink, options: options,
            handles: handles, clock: clock, segment: (self, range))
        if let lead = members.first { segment.continueSources(of: lead) }
        return segment
    }

    /// The lead's first response allows segments and names the version in `record`: the other
    /// ranges become segments, which ask for that version with `If-Range`.
    func release(_ record: ResumeRecord) throws(SystemError) {
        var record = record
        record.reused = reused
        self.record = record
        for range in unreleased {
            let member = try make(range, done: 0)
            member.announced = true
            members.append(member)
            released.append(member)
        }
        unreleased = []
    }

    static let boundary: Int64 = 1 << 20

    /// Saves the resume record through `member`'s sink once the bytes it names are written (a sink
    /// may write on another thread, and hold back a partly filled buffer to keep its writes aligned),
    /// so that a record never names bytes a crash could still lose. Segments receive on two threads
    /// (`SplitMultiplexer`): each names its own bytes written as of now, and the others' as of their
    /// last save, which is never more than is on disk; one save at a time.
    func saveRecord(from member: Download) throws(SystemError) {
        try member.sink.settle()
        try savingRecord { () throws(SystemError) in
            member.writtenInRecord = member.sink.writtenOffset
            try member.sink.saveResume(recordFields)
        }
    }

    /// Saves the resume record as the segments stop, every one off the transfers: each one's
    /// held-back bytes are written first, so that the record names every byte received.
    func saveFinalRecord(via sink: any DownloadSink) throws(SystemError) {
        for member in members { try member.sink.flush() }
        try savingRecord { () throws(SystemError) in
            for member in members { member.writtenInRecord = member.sink.writtenOffset }
            try sink.saveResume(recordFields)
        }
    }

    /// Runs `save` with the record's lock held.
    private func savingRecord(_ save: () throws(SystemError) -> Void) throws(SystemError) {
        let failure = recordLock.locked { () -> SystemError? in
            do throws(SystemError) { try save() } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// The resume record's fields: the version, and each segment's range and the bytes it held
    /// written at its last save; with `recordLock` held.
    private var recordFields: [(key: String, value: String?)] {
        guard var record else { return [] }
        record.segments = (members.map { .init(range: $0.range, done: $0.writtenInRecord - $0.range.lowerBound) }
            + unreleased.map { .init(range: $0, done: 0) }).sorted { $0.range.lowerBound < $1.range.lowerBound }
        return record.fields
    }

    /// How many bytes a segment writes between two saves of the record: a sixteenth of it, from
    /// 256 KiB to 16 MiB, so that a run killed at any moment loses little and saves stay rare.
    func recordInterval(_ range: Range<Int64>) -> Int64 {
        min(16 << 20, max(256 << 10, Int64(range.count) / 16))
    }

    /// Bytes held by every segment.
    var done: Int64 { members.lazy.map { $0.sink.offset - $0.range.lowerBound }.saturatingSum() }
    /// The file's attempts: the lead's, and each retry of another segment (their first requests
    /// are part of the file's first attempt).
    var attempts: Int { lead.attempts + members.dropFirst().lazy.map { max(0, $0.attempts - 1) }.reduce(0, +) }
    var transferred: Int64 { members.lazy.map(\.transferred).saturatingSum() }

    /// A segment holds its every byte: when all do, their CRCs join into the file's proof (once,
    /// though several segments may end in one step). The engine then ends the file, proven or
    /// one stream, and takes its segments off the transfers: one still running (every byte in,
    /// the response not over) must not outlive its file.
    func segmentComplete() -> Download.Next {
        guard !ended, unreleased.isEmpty, members.allSatisfy({ $0.sink.offset == $0.range.upperBound }) else { return .segmentDone }
        if let reason = members.lazy.compactMap({ $0.sink.mismatch() }).first { return .oneStream(reason: reason, fresh: true) }
        file.joinSegments()
        if let reason = file.mismatch() { return .oneStream(reason: reason, fresh: true) }
        return .proven
    }

    /// The file becomes one download in one stream from zero, from the source `segment` was at;
    /// the segments are over (the engine takes them off the transfers). After a CRC mismatch
    /// (`mismatch`), it goes on from the next source when there is one, and the source is marked
    /// bad when every segment's bytes came from it.
    func oneStream(continuing segment: Download, afterMismatch mismatch: String?) throws(SystemError) -> Download {
        ended = true
        let wholly = members.allSatisfy { $0.bytesSource == $0.urlIndex }
        try file.restart()
        let single = Download(
            entry: request.entry, action: request.action, sources: request.sources, health: health, sink: file, options: options,
            handles: handles, clock: clock)
        single.announced = true
        single.carry(attempts: attempts, transferred: transferred, crcRestarts: mismatch == nil ? 0 : 1)
        single.continueSources(of: segment)
        if let mismatch { _ = single.rejectBytes(reason: mismatch, fromThisSourceOnly: wholly) }
        return single
    }
}
