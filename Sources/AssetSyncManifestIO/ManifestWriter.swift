package import AssetSyncModel

/// A manifest as XML or JSON text, for the publishing side (`assetsync manifest`).
package enum ManifestWriter {
    package enum Format: String, Sendable { case xml, json }

    /// The manifest as text in `format`.
    package static func render(_ manifest: Manifest, as format: Format) -> String {
        var out = ""
        switch format {
        case .xml:
            out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            out += "<manifest version=\"\(manifest.version)\"" + (manifest.base.map { " base=\"\(xmlEscaped($0))\"" } ?? "") + ">\n"
            for mirror in manifest.mirrors { out += "  <mirror base=\"\(xmlEscaped(mirror))\"/>\n" }
            for entry in manifest.entries {
                out += "  <file path=\"\(xmlEscaped(entry.path))\" size=\"\(entry.size)\""
                out += entry.crc32.map { " crc32=\"\(CRC32Text.hex($0))\"" } ?? ""
                out += entry.sha256.map { " sha256=\"\($0.hex)\"" } ?? ""
                out += (entry.chunks.map { " chunks=\"\($0.text)\"" } ?? "") + "/>\n"
            }
            out += "</manifest>\n"
        case .json:
            out += "{\"version\": \(manifest.version),"
            if let base = manifest.base {
                out += " \"base\": "
                JSONLine.appendQuoted(base, to: &out)
                out += ","
            }
            if !manifest.mirrors.isEmpty {
                out += " \"mirrors\": ["
                for (index, mirror) in manifest.mirrors.enumerated() {
                    if index > 0 { out += ", " }
                    JSONLine.appendQuoted(mirror, to: &out)
                }
                out += "],"
            }
            out += " \"files\": ["
            for (index, entry) in manifest.entries.enumerated() {
                out += index == 0 ? "\n  {\"path\": " : ",\n  {\"path\": "
                JSONLine.appendQuoted(entry.path, to: &out)
                out += ", \"size\": \(entry.size)"
                out += entry.crc32.map { ", \"crc32\": \"\(CRC32Text.hex($0))\"" } ?? ""
                out += entry.sha256.map { ", \"sha256\": \"\($0.hex)\"" } ?? ""
                out += (entry.chunks.map { ", \"chunks\": \"\($0.text)\"" } ?? "") + "}"
            }
            out += manifest.entries.isEmpty ? "]}\n" : "\n]}\n"
        }
        return out
    }

    static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
