package import AssetSync

/// Renders a `SyncPlan` as a table for people or as JSON lines for machines,
/// handing the text to a sink in chunks so that a large plan is never held whole.
package enum PlanReport {
    package static let chunkSize = 64 << 10

    package static func table(_ plan: SyncPlan, reuse: PlannedReuse = .none) -> String {
        var all = ""
        writeTable(plan, reuse: reuse) { all += $0 }
        return all
    }

    package static func jsonLines(_ plan: SyncPlan, reuse: PlannedReuse = .none) -> String {
        var all = ""
        writeJSONLines(plan, reuse: reuse) { all += $0 }
        return all
    }

    package static func writeTable(_ plan: SyncPlan, reuse: PlannedReuse = .none, to sink: (String) -> Void) {
        var out = "ACTION   SIZE        PATH\n"
        for (index, item) in plan.items.enumerated() {
            if out.utf8.count >= chunkSize {
                sink(out)
                out = ""
            }
            out += pad(item.action.rawValue, 9)
            out += pad(ByteCount.human(item.size), 12)
            out += QuotedValue.displayPath(item.path)
            let notes = [note(for: item), reuse.source(ofItem: index).map { "may be copied from \(QuotedValue.displayPath($0))" }].compactMap { $0 }
            if !notes.isEmpty { out += "  (\(notes.joined(separator: "; ")))" }
            out += "\n"
        }
        if plan.items.isEmpty { out += "(nothing: the manifest and the cache are both empty)\n" }
        out += "\n" + summary(plan, reuse: reuse)
        sink(out)
    }

    private static func summary(_ plan: SyncPlan, reuse: PlannedReuse) -> String {
        let listed = plan.items.count - plan.count(.extra)
        var out = "\(listed) \(listed == 1 ? "file" : "files") in the manifest: "
        out += "\(plan.count(.new)) new, \(plan.count(.changed)) changed, \(plan.count(.check)) to check"
        if plan.count(.current) > 0 { out += ", \(plan.count(.current)) current" }
        out += "; \(plan.count(.extra)) extra in the cache"
        out += plan.count(.extra) > 0 ? " (pull --delete would remove them).\n" : ".\n"
        out += "To download: \(ByteCount.human(plan.bytesToDownload)) (\(plan.bytesToDownload) bytes)"
        let checking = plan.bytes(.check)
        if checking > 0 {
            out += ", plus up to \(ByteCount.human(checking)) if files to check fail their CRC"
        }
        out += ".\n"
        if reuse.bytes > 0 {
            out += "Of that, \(ByteCount.human(reuse.bytes)) may be copied from files already on this machine instead "
                + "(each copy is proven before it is used).\n"
        }
        return out
    }

    /// Plans at least this long are formatted on two threads, in alternate blocks of `blockItems`.
    package static let parallelItems = 100_000
    package static let blockItems = 8192

    /// One `{"type":"plan",…}` line per item, then the summary. The lines are written as bytes
    /// into one buffer, handed to `sink` every `chunkSize` bytes: at a million items, building
    /// `String`s piece by piece cost more than reading the manifest. In a long plan, another
    /// thread formats every other block of items, a block or two ahead, and this one hands its
    /// blocks to `sink` in their turn, so the byte stream is the same.
    package static func writeJSONLines(_ plan: SyncPlan, reuse: PlannedReuse = .none, to sink: (String) -> Void) {
        let items = plan.items
        var totals = LineTotals()
        let blocks = (items.count + blockItems - 1) / blockItems
        func block(_ number: Int) -> SyncPlan.Items.SubSequence {
            items[(number * blockItems)..<min(items.count, (number + 1) * blockItems)]
        }
        let alternated = items.count >= parallelItems && AssetSync.alternating(
            count: blocks,
            even: { number in totals.add(writeJSONLines(block(number), reuse: reuse, chunkSize: chunkSize, to: sink)) },
            odd: { number in
                var text = ""
                let blockTotals = writeJSONLines(block(number), reuse: reuse, chunkSize: .max) { text = $0 }
                return (text, blockTotals)
            },
            take: { (text: String, blockTotals: LineTotals) in
                sink(text)
                totals.add(blockTotals)
            })
        if !alternated { totals = writeJSONLines(items[...], reuse: reuse, chunkSize: chunkSize, to: sink) }
        var summary = JSONLine(type: "summary")
        summary.add("files", items.count - totals.count[.extra, default: 0])
        for action in SyncPlan.Action.allCases { summary.add(action.rawValue, totals.count[action, default: 0]) }
        summary.add("bytes_to_download", totals.bytes[.new, default: 0].addingSaturated(totals.bytes[.changed, default: 0]))
        summary.add("bytes_to_check", totals.bytes[.check, default: 0])
        summary.add("bytes_reusable", reuse.bytes)
        sink(summary.line)
    }

    /// How many items, and how many bytes, of each action a run of lines had.
    private struct LineTotals {
        var count: [SyncPlan.Action: Int] = [:]
        var bytes: [SyncPlan.Action: Int64] = [:]

        mutating func add(_ other: LineTotals) {
            count.merge(other.count, uniquingKeysWith: +)
            bytes.merge(other.bytes) { $0.addingSaturated($1) }
        }
    }

    /// The start of a plan line, up to the path: one copy per line instead of three.
    private static func linePrefix(_ action: SyncPlan.Action) -> StaticString {
        switch action {
        case .new: #"{"type":"plan","action":"new","path":"#
        case .changed: #"{"type":"plan","action":"changed","path":"#
        case .check: #"{"type":"plan","action":"check","path":"#
        case .current: #"{"type":"plan","action":"current","path":"#
        case .extra: #"{"type":"plan","action":"extra","path":"#
        }
    }

    /// The lines of `items`, in chunks of about `chunkSize` bytes (one for `.max`); returns their
    /// totals for the summary.
    private static func writeJSONLines(
        _ block: SyncPlan.Items.SubSequence, reuse: PlannedReuse, chunkSize: Int, to sink: (String) -> Void
    ) -> LineTotals {
        let items = block.base
        var out = OutputBuffer(capacity: min(chunkSize, block.count * 96) + 8192)
        defer { out.deallocate() }
        var counts = (0, 0, 0, 0, 0)
        var bytes: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
        for index in block.indices {  // field by field: copying whole items showed in profiles
            if out.count >= chunkSize { sink(out.take()) }
            let action = items.action(at: index)
            let size = items.size(at: index)
            switch action {
            case .new: counts.0 += 1; bytes.0 = bytes.0.addingSaturated(size)
            case .changed: counts.1 += 1; bytes.1 = bytes.1.addingSaturated(size)
            case .check: counts.2 += 1; bytes.2 = bytes.2.addingSaturated(size)
            case .current: counts.3 += 1; bytes.3 = bytes.3.addingSaturated(size)
            case .extra: counts.4 += 1; bytes.4 = bytes.4.addingSaturated(size)
            }
            out.append(linePrefix(action))
            JSONLine.appendQuoted(items.path(at: index), to: &out)
            out.append(#","size":"#)
            out.append(decimal: size)
            if let local = items.local(at: index), action == .changed || (action == .extra && local.kind != .regular) {
                out.append(#","local_kind":""#)
                out.append(local.kind.rawValue)
                out.append(UInt8(ascii: "\""))
                if action == .changed {
                    out.append(#","local_size":"#)
                    out.append(decimal: local.size)
                }
            }
            if let source = reuse.source(ofItem: index) {
                out.append(#","reusable_from":"#)
                JSONLine.appendQuoted(source, to: &out)
            }
            out.append("}\n")
        }
        if out.count > 0 { sink(out.take()) }
        return LineTotals(
            count: [.new: counts.0, .changed: counts.1, .check: counts.2, .current: counts.3, .extra: counts.4],
            bytes: [.new: bytes.0, .changed: bytes.1, .check: bytes.2, .current: bytes.3, .extra: bytes.4])
    }

    private static func note(for item: SyncPlan.Item) -> String? {
        guard let local = item.local else { return nil }
        switch (item.action, local.kind) {
        case (.changed, .regular): return "cache has \(ByteCount.human(local.size))"
        case (_, .symlink): return "a symlink\(item.action == .changed ? " is in its place" : "")"
        case (_, .directory): return "a directory is in its place"
        case (_, .other): return "a special file\(item.action == .changed ? " is in its place" : "")"
        default: return nil
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text + " " : text + String(repeating: " ", count: width - count)
    }
}
