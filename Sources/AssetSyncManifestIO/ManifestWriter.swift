package import AssetSyncModel

/// A manifest as XML, JSON or Metalink 4 text, for the publishing side (`assetsync manifest`).
package enum ManifestWriter {
    package enum Format: String, Sendable { case xml, json, meta4 }

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
        case .meta4:
            out = metalink(manifest)
        }
        return out
    }

    /// The manifest as an RFC 5854 Metalink: each file's name, size and SHA-256 (its entries must
    /// give one: a Metalink has no CRC-32), and its sources as urls, priority 1 first.
    private static func metalink(_ manifest: Manifest) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n"
        for entry in manifest.entries {
            out += "  <file name=\"\(xmlEscaped(entry.path))\">\n"
            out += "    <size>\(entry.size)</size>\n"
            if let sha256 = entry.sha256 { out += "    <hash type=\"sha-256\">\(sha256.hex)</hash>\n" }
            for (index, source) in manifest.sources(of: entry).enumerated() {
                out += "    <url priority=\"\(index + 1)\">\(xmlEscaped(source.url))</url>\n"
            }
            out += "  </file>\n"
        }
        return out + "</metalink>\n"
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
