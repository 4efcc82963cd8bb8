/// Renders a `SyncPlan` as a table for people or as JSON lines for machines.
public enum PlanReport {
    public static func table(_ plan: SyncPlan) -> String {
        var out = "ACTION   SIZE        PATH\n"
        out.reserveCapacity(plan.items.count * 48)
        for item in plan.items {
            out += pad(item.action.rawValue, 9)
            out += pad(ByteCount.human(item.size), 12)
            out += QuotedValue.displayPath(item.path)
            if let note = note(for: item) { out += "  (\(note))" }
            out += "\n"
        }
        if plan.items.isEmpty { out += "(nothing: the manifest and the cache are both empty)\n" }
        out += "\n" + summary(plan)
        return out
    }

    public static func summary(_ plan: SyncPlan) -> String {
        let listed = plan.items.count - plan.count(.extra)
        var out = "\(listed) \(listed == 1 ? "file" : "files") in the manifest: "
        out += "\(plan.count(.new)) new, \(plan.count(.changed)) changed, \(plan.count(.check)) to check"
        out += "; \(plan.count(.extra)) extra in the cache.\n"
        out += "To download: \(ByteCount.human(plan.bytesToDownload)) (\(plan.bytesToDownload) bytes)"
        let checking = plan.bytes(.check)
        if checking > 0 {
            out += ", plus up to \(ByteCount.human(checking)) if files to check fail their CRC"
        }
        out += ".\n"
        return out
    }

    public static func jsonLines(_ plan: SyncPlan) -> String {
        var out = ""
        for item in plan.items {
            var line = JSONLine(type: "plan")
            line.add("action", item.action.rawValue)
            line.add("path", item.path)
            line.add("size", item.size)
            if item.action == .changed, let local = item.local {
                line.add("local_kind", local.kind.rawValue)
                line.add("local_size", local.size)
            } else if item.action == .extra, let local = item.local, local.kind != .regular {
                line.add("local_kind", local.kind.rawValue)
            }
            out += line.line
        }
        var summary = JSONLine(type: "summary")
        summary.add("files", plan.items.count - plan.count(.extra))
        for action in SyncPlan.Action.allCases { summary.add(action.rawValue, plan.count(action)) }
        summary.add("bytes_to_download", plan.bytesToDownload)
        summary.add("bytes_to_check", plan.bytes(.check))
        out += summary.line
        return out
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
