package import AssetSync

/// The lines of the live progress block: one overall, one per active transfer,
/// each fitted to the terminal's width.
package enum ProgressLines {
    package static func render(
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
        // Fixed columns, as cargo and docker draw them: the path, the bar and the figures start at the
        // same place on every line, whatever the sizes' widths.
        let barWidth = width >= 100 ? 30 : width >= 70 ? 20 : width >= 50 ? 10 : 0
        let showsRate = width >= 70
        let figuresWidth = Self.sizeWidth * 2 + 3 + (showsRate ? 2 + Self.rateWidth : 0)
        let pathWidth = max(8, width - 1 - 2 - (barWidth > 0 ? barWidth + 2 : 0) - 2 - figuresWidth)
        for transfer in snapshot.transfers {
            var figures = pad(ByteCount.human(transfer.done), Self.sizeWidth) + " / " + pad(ByteCount.human(transfer.size), Self.sizeWidth)
            if showsRate {
                let rate = transferRates[transfer.path].flatMap { $0 > 0 ? "\(ByteCount.human(Int64($0)))/s" : nil } ?? ""
                figures += "  " + pad(rate, Self.rateWidth)
            }
            let bar = barWidth > 0 ? "  " + self.bar(transfer.done, of: transfer.size, width: barWidth) : ""
            lines.append(fit("  " + shorten(QuotedValue.displayPath(transfer.path), to: pathWidth) + bar + "  " + figures, width))
        }
        return lines
    }

    /// The widest size `ByteCount.human` writes ("1023.9 MiB"), and the widest rate ("1023.9 MiB/s").
    package static let sizeWidth = 10
    package static let rateWidth = 12

    /// Right-aligns `text` in a column of `width`.
    package static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// "[=======>      ]"
    package static func bar(_ done: Int64, of total: Int64, width: Int) -> String {
        let inner = width - 2
        let filled = total > 0 ? Int(Double(inner) * Double(min(done, total)) / Double(total)) : inner
        if filled >= inner { return "[" + String(repeating: "=", count: inner) + "]" }
        return "[" + String(repeating: "=", count: filled) + ">" + String(repeating: " ", count: inner - filled - 1) + "]"
    }

    /// Keeps the end of a long name, where the file name is: "…ter/sounds.zip".
    package static func shorten(_ name: String, to room: Int) -> String {
        guard name.count > room else { return name + String(repeating: " ", count: room - name.count) }
        return "…" + String(name.suffix(room - 1))
    }

    /// Never wider than the terminal, so that no line wraps and the block can be redrawn in place.
    package static func fit(_ line: String, _ width: Int) -> String {
        line.count < width ? line : String(line.prefix(width - 1))
    }

    /// "0:42", "1:02:03".
    package static func clock(_ seconds: Double) -> String {
        let total = Int(min(seconds, 359_999).rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let pad = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(pad(minutes)):\(pad(secs))" : "\(minutes):\(pad(secs))"
    }
}
