/// Renders a `SyncPlan` as a table for people or as JSON lines for machines,
/// handing the text to a sink in chunks so that a large plan is never held whole.
public enum PlanReport {
    static let chunkSize = 64 << 10

    public static func table(_ plan: SyncPlan) -> String {
        var all = ""
        writeTable(plan) { all += $0 }
        return all
    }

    public static func jsonLines(_ plan: SyncPlan) -> String {
        var all = ""
        writeJSONLines(plan) { all += $0 }
        return all
    }

    public static func writeTable(_ plan: SyncPlan, to sink: (String) -> Void) {
        var out = "ACTION   SIZE        PATH\n"
        for item in plan.items {
            if out.utf8.count >= chunkSize {
                sink(out)
                out = ""
            }
            out += pad(item.action.rawValue, 9)
            out += pad(ByteCount.human(item.size), 12)
            out += QuotedValue.displayPath(item.path)
            if let note = note(for: item) { out += "  (\(note))" }
            out += "\n"
        }
        if plan.items.isEmpty { out += "(nothing: the manifest and the cache are both empty)\n" }
        out += "\n" + summary(plan)
        sink(out)
    }

    public static func summary(_ plan: SyncPlan) -> String {
        let listed = plan.items.count - plan.count(.extra)
        var out = "\(listed) \(listed == 1 ? "file" : "files") in the manifest: "
        out += "\(plan.count(.new)) new, \(plan.count(.changed)) changed, \(plan.count(.check)) to check"
        out += "; \(plan.count(.extra)) extra in the cache"
        out += plan.count(.extra) > 0 ? " (pull --delete would remove them).\n" : ".\n"
        out += "To download: \(ByteCount.human(plan.bytesToDownload)) (\(plan.bytesToDownload) bytes)"
        let checking = plan.bytes(.check)
        if checking > 0 {
            out += ", plus up to \(ByteCount.human(checking)) if files to check fail their CRC"
        }
        out += ".\n"
        return out
    }

    /// One `{"type":"plan",…}` line per item, then the summary. The lines are written as bytes
    /// into one buffer, handed to `sink` every `chunkSize` bytes: at a million items, building
    /// `String`s piece by piece cost more than reading the manifest.
    public static func writeJSONLines(_ plan: SyncPlan, to sink: (String) -> Void) {
        var out = OutputBuffer(capacity: chunkSize + 8192)
        defer { out.deallocate() }
        plan.items.withUnsafeBufferPointer { items in
            for index in items.indices {  // field by field: copying whole items showed in profiles
                if out.count >= chunkSize { sink(out.take()) }
                let action = items[index].action
                out.append(#"{"type":"plan","action":""#)
                out.append(action.name)
                out.append(#"","path":"#)
                let path = items[index].path
                JSONLine.appendQuoted(path, to: &out)
                out.append(#","size":"#)
                out.append(decimal: items[index].size)
                if let local = items[index].local, action == .changed || (action == .extra && local.kind != .regular) {
                    out.append(#","local_kind":""#)
                    out.append(local.kind.rawValue)
                    out.append(UInt8(ascii: "\""))
                    if action == .changed {
                        out.append(#","local_size":"#)
                        out.append(decimal: local.size)
                    }
                }
                out.append("}\n")
            }
        }
        var summary = JSONLine(type: "summary")
        summary.add("files", plan.items.count - plan.count(.extra))
        for action in SyncPlan.Action.allCases { summary.add(action.rawValue, plan.count(action)) }
        summary.add("bytes_to_download", plan.bytesToDownload)
        summary.add("bytes_to_check", plan.bytes(.check))
        out.append(summary.line)
        sink(out.take())
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
