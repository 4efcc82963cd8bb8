/// The lines of the live progress block: one overall, one per active transfer,
/// each fitted to the terminal's width.
public enum ProgressLines {
    public static func render(
        _ snapshot: ProgressSnapshot, width: Int, rate: Double?, transferRates: [String: Double]
    ) -> [String] {
        let width = max(20, width)
        var parts = [
            "Pulling \(snapshot.filesDone)/\(snapshot.filesTotal) files",
            "\(ByteCount.human(snapshot.bytesDone)) / \(ByteCount.human(snapshot.bytesTotal))",
        ]
        if let rate, rate > 0 {
            parts.append("\(ByteCount.human(Int64(rate)))/s")
            parts.append("ETA \(clock(Double(max(0, snapshot.bytesTotal - snapshot.bytesDone)) / rate))")
        }
        // A narrow terminal loses the ETA, then the rate, rather than a word cut in half.
        while parts.count > 2, parts.joined(separator: "  ").count >= width { parts.removeLast() }
        var lines = [fit(parts.joined(separator: "  "), width)]
        for transfer in snapshot.transfers {
            var tail = "  \(ByteCount.human(transfer.done)) / \(ByteCount.human(transfer.size))"
            if let rate = transferRates[transfer.path], rate > 0 { tail += "  \(ByteCount.human(Int64(rate)))/s" }
            let barWidth = width >= 100 ? 30 : width >= 70 ? 20 : width >= 50 ? 10 : 0
            let bar = barWidth > 0 ? "  " + self.bar(transfer.done, of: transfer.size, width: barWidth) : ""
            let room = width - 1 - 2 - bar.count - tail.count
            lines.append(fit("  " + shorten(QuotedValue.displayPath(transfer.path), to: max(8, room)) + bar + tail, width))
        }
        return lines
    }

    /// "[=======>      ]"
    static func bar(_ done: Int64, of total: Int64, width: Int) -> String {
        let inner = width - 2
        let filled = total > 0 ? Int(Double(inner) * Double(min(done, total)) / Double(total)) : inner
        if filled >= inner { return "[" + String(repeating: "=", count: inner) + "]" }
        return "[" + String(repeating: "=", count: filled) + ">" + String(repeating: " ", count: inner - filled - 1) + "]"
    }

    /// Keeps the end of a long name, where the file name is: "…ter/sounds.zip".
    static func shorten(_ name: String, to room: Int) -> String {
        guard name.count > room else { return name + String(repeating: " ", count: room - name.count) }
        return "…" + String(name.suffix(room - 1))
    }

    /// Never wider than the terminal, so that no line wraps and the block can be redrawn in place.
    static func fit(_ line: String, _ width: Int) -> String {
        line.count < width ? line : String(line.prefix(width - 1))
    }

    /// "0:42", "1:02:03".
    static func clock(_ seconds: Double) -> String {
        let total = Int(min(seconds, 359_999).rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let pad = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(pad(minutes)):\(pad(secs))" : "\(minutes):\(pad(secs))"
    }
}
