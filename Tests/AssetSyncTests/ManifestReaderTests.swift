import CZlib
import Foundation
import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// The XML and JSON readers: equal models, positions in errors, structure rules.
@Suite struct ManifestReaderTests {
    @Test func examplesInBothEncodingsGiveTheSameManifest() throws {
        let xml = try ManifestReader.read(path: packageRoot.appendingPathComponent("manifests/example.xml").path)
        let json = try ManifestReader.read(path: packageRoot.appendingPathComponent("manifests/example.json").path)
        #expect(xml == json)
        #expect(xml.entries.count == 4)
        #expect(xml.base == "https://cdn.example.com/game/")
        #expect(xml.entries[0] == ManifestEntry(path: "videos/intro.mp4", size: 734_003_200, crc32: 0x6a75_c367))
        #expect(xml.entries[1].mirrors == ["https://mirror.example.com/l1.zip"])
        #expect(xml.entries[2].url == "https://storage.example.com/l2.zip?X-Expires=1700000000&X-Signature=4f2a9c")
        #expect(xml.sources(of: xml.entries[3]).map(\.url) == [
            "https://cdn.example.com/game/config/settings%20v2.json", "https://eu.mirror.example.com/game/config/settings%20v2.json",
            "https://us.mirror.example.com/assets/game/config/settings%20v2.json",
        ])
    }

    /// Thousands of entries, so that strings, numbers and tags straddle every read buffer boundary.
    @Test func largeManifestsGiveTheSameModelInBothEncodings() throws {
        var xml = "<manifest version=\"1\" base=\"https://h.example/g/\">\n"
        var json = "{\"version\": 1, \"base\": \"https://h.example/g/\", \"files\": [\n"
        var expected: [ManifestEntry] = []
        for index in 0..<3000 {
            let path = "dir\(index % 37)/sub \(index % 5)/file-\(index)-\(String(repeating: "x", count: index % 50)).bin"
            let url = index % 7 == 0 ? "https://m.example/\(index)?a=1&b=\(index)" : nil
            expected.append(ManifestEntry(path: path, size: Int64(index) * 1_000_003, crc32: UInt32(index) &* 2_654_435_761, url: url))
            let crc = String(format: "%08x", UInt32(index) &* 2_654_435_761)
            xml += "  <file path=\"\(path)\" size=\"\(Int64(index) * 1_000_003)\" crc32=\"\(crc)\""
            xml += (url.map { " url=\"\($0.replacingOccurrences(of: "&", with: "&amp;"))\"" } ?? "") + "/>\n"
            json += (index == 0 ? "" : ",\n") + "  {\"path\": \"\(path)\", \"size\": \(Int64(index) * 1_000_003), \"crc32\": \"\(crc)\""
            json += (url.map { ", \"url\": \"\($0)\"" } ?? "") + "}"
        }
        xml += "</manifest>\n"
        json += "]}\n"
        #expect(json.utf8.count > 200_000)
        let fromXML = try readManifest(xml)
        #expect(fromXML.entries == expected)
        #expect(try readManifest(json) == fromXML)
    }

    @Test func byteOrderMarksAreSkippedInBothEncodings() throws {
        let json = "\u{FEFF}{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": 1, \"crc32\": \"00000001\"}]}"
        let xml = "\u{FEFF}<?xml version=\"1.0\"?><manifest version=\"1\" base=\"http://h/\"><file path=\"a\" size=\"1\" crc32=\"00000001\"/></manifest>"
        #expect(try readManifest(json) == readManifest(xml))
    }

    @Test func commentsAndInstructionsAnywhereAreIgnored() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- leading -->
            <?app ignored?>
            <manifest version="1" base="http://h/"><!-- a --><file path="a" size="1" crc32="00000001"><!-- b -->
            <mirror url="http://m/a"/></file><?x y?>
            </manifest>
            <!-- trailing -->
            """
        #expect(try readManifest(xml).entries == [ManifestEntry(path: "a", size: 1, crc32: 1, mirrors: ["http://m/a"])])
        #expect(manifestError("<manifest version=\"1\">\n<!-- fine -->\n  <file path=\"../x\" size=\"1\" crc32=\"00000001\"/></manifest>")
            == "m:3:3: <file>: path must not have a \".\" or \"..\" component: \"../x\"")
    }

    @Test func gzipIsDetectedByContent() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("manifests/example.json"), encoding: .utf8)
        let directory = try TemporaryDirectory()
        let plain = try directory.write("plain.bin", text)
        let packed = try directory.write("packed.xml", gzip(Data(text.utf8)))
        #expect(try ManifestReader.read(path: packed) == ManifestReader.read(path: plain))
    }

    @Test func relativeURLsResolveAgainstBaseInEitherKeyOrder() throws {
        let json = """
            {"files": [{"path": "a", "size": 1, "crc32": "00000001", "url": "../x/a?s=1", "mirrors": ["m/a"]}],
             "base": "https://h.example/game/", "version": 1}
            """
        let manifest = try readManifest(json)
        #expect(manifest.entries[0].url == "https://h.example/x/a?s=1")
        #expect(manifest.entries[0].mirrors == ["https://h.example/game/m/a"])
        let xml = """
            <manifest version="1" base="https://h.example/game/">
              <file path="a" size="1" crc32="00000001" url="../x/a?s=1"><mirror url="m/a"/></file>
            </manifest>
            """
        #expect(try readManifest(xml) == manifest)
    }

    @Test func predefinedEntitiesAndCharacterReferencesWork() throws {
        let xml = """
            <manifest version="1"><file path="caf&#xE9; &amp; &lt;b&gt;" size="1" crc32="00000001"
              url="https://h.example/a?x=1&amp;y=&quot;2&quot;&apos;"/></manifest>
            """
        let entry = try readManifest(xml).entries[0]
        #expect(entry.path == "café & <b>")
        #expect(entry.url == "https://h.example/a?x=1&y=\"2\"'")
    }

    @Test(arguments: [
        // XML: positions are the start of the offending element.
        ("<manifest version=\"1\" base=\"http://h/\">\n  <file path=\"a\" size=\"1\" crc32=\"00000001\"/>\n  <file path=\"../b\" size=\"1\" crc32=\"00000001\"/>\n</manifest>",
         "m:3:3: <file>: path must not have a \".\" or \"..\" component: \"../b\""),
        ("<manifest version=\"1\" base=\"http://h/\">\n  <file path=\"a\" size=\"1\" crc32=\"00000001\"/>\n  <file path=\"a\" size=\"2\" crc32=\"00000001\"/>\n</manifest>",
         "m:3:3: <file>: path is listed twice (also at line 2, column 3): \"a\""),
        ("<manifest version=\"1\" base=\"http://h/\">\n<file path=\"a/b\" size=\"1\" crc32=\"00000001\"/><file path=\"a\" size=\"2\" crc32=\"00000001\"/>\n</manifest>",
         "m:2:45: <file>: path is a file here but a directory of \"a/b\" (at line 2, column 1): \"a\""),
        ("<manifest version=\"1\" base=\"http://h/\"><file path=\"a\" size=\"1\" crc32=\"00000001\" mode=\"755\"/></manifest>",
         "m:1:40: <file>: unknown attribute mode on <file> (allowed: path, size, crc32, url, sha256, chunks)"),
        ("<manifest version=\"1\" base=\"http://h/\"><dir path=\"a\"/></manifest>",
         "m:1:40: unknown element <dir> in <manifest> (expected <file> or <mirror>)"),
        ("<manifest version=\"1\" base=\"http://h/\">hello<file path=\"a\" size=\"1\" crc32=\"00000001\"/></manifest>",
         "m:1:40: text is not allowed here; a manifest holds only elements and attributes"),
        ("<manifest version=\"1\" base=\"http://h/\"><file path=\"a\" crc32=\"00000001\"/></manifest>",
         "m:1:40: <file>: missing the required attribute size"),
        ("<manifest version=\"2\"/>", "m:1:1: version 2 is not supported; this assetsync reads version 1"),
        ("<manifest base=\"http://h/\"/>", "m:1:1: <manifest> is missing its version attribute"),
        ("<manifest version=\"1\"><file path=\"a\" size=\"1\" crc32=\"00000001\"/></manifest>",
         "m:1:23: <file>: has no url, and the manifest has no base to fetch it from"),
        ("<manifest version=\"1\" base=\"http://h/x\"/>",
         "m:1:1: base must end with \"/\" (entries are fetched at base + path): \"http://h/x\""),
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<manifest version=\"1\"/>",
         "m:2:1: a DOCTYPE (or any other markup declaration) is not allowed; manifests may use only XML's predefined entities and character references"),
        ("<manifest version=\"1\" base=\"http://h/\"><file path=\"&undefined;\" size=\"1\" crc32=\"00000001\"/></manifest>",
         "m:1:63: not well-formed XML: Entity 'undefined' not defined"),
        // JSON: positions are the start of the offending value or key.
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [\n {\"path\": \"a\", \"size\": 1, \"crc32\": \"00000001\"},\n {\"path\": \"b\", \"size\": -1, \"crc32\": \"00000001\"}]}",
         "m:3:24: files[1]: size must not be negative: \"-1\""),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"path\": \"b\", \"size\": 1, \"crc32\": \"00000001\"}]}",
         "m:1:61: files[0]: duplicate key \"path\""),
        ("{\"version\": 1, \"version\": 1, \"files\": []}", "m:1:16: duplicate key \"version\""),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": \"1\", \"crc32\": \"00000001\"}]}",
         "m:1:69: files[0]: size must be a JSON number, not a string"),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": 1e3, \"crc32\": \"00000001\"}]}",
         "m:1:69: files[0]: size must be a whole number of bytes, without fraction or exponent: \"1e3\""),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\\u0000b\", \"size\": 1, \"crc32\": \"00000001\"}]}",
         "m:1:56: files[0]: path must not contain control characters: \"a\\u{00}b\""),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"\\ud800\", \"size\": 1, \"crc32\": \"00000001\"}]}",
         "m:1:57: files[0]: path has an unpaired UTF-16 surrogate escape: \"\\\\ud800\""),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": 1, \"crc32\": \"00000001\", \"x\": 1}]}",
         "m:1:93: files[0]: unknown key \"x\" (allowed: path, size, crc32, url, mirrors, sha256, chunks)"),
        ("{\"version\": 1, \"files\": [[[[[[[[[[[[[[[[[[[[", "m:1:26: files[0]: each file must be an object, not an array"),
        ("[1]", "m:1:1: the manifest must be a JSON object, not an array"),
        ("{\"version\": 1, \"base\": \"http://h/\"}", "m: the manifest has no \"files\" array"),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": []} x", "m:1:50: unexpected data after the manifest object"),
        ("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": 01, \"crc32\": \"00000001\"}]}",
         "m:1:69: files[0]: size is not a valid JSON number: \"01\""),
        ("hello", "m: not a manifest: it must be XML (starting with \"<\") or JSON (starting with \"{\"), optionally gzip-compressed"),
        ("", "m: the manifest is empty"),
    ])
    func refuses(_ text: String, _ expected: String) {
        #expect(manifestError(text) == expected)
    }

    @Test func invalidUTF8IsRefusedInBothEncodings() throws {
        let directory = try TemporaryDirectory()
        let json = try directory.write("j", Data("{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a".utf8) + [0xFF] + Data("\", \"size\": 1, \"crc32\": \"00000001\"}]}".utf8))
        #expect(throws: ManifestError(
            manifest: json, position: SourcePosition(line: 1, column: 56), entry: "files[0]",
            problem: "path is not valid UTF-8", value: "\"a\\xff\"")) { try ManifestReader.read(path: json) }
        let xml = try directory.write("x", Data("<manifest version=\"1\" base=\"http://h/\"><file path=\"a".utf8) + [0xFF] + Data("\" size=\"1\" crc32=\"00000001\"/></manifest>".utf8))
        #expect(throws: ManifestError.self) { try ManifestReader.read(path: xml) }
        do {
            _ = try ManifestReader.read(path: xml)
        } catch {
            #expect(error.problem.hasPrefix("not well-formed XML: Input is not proper UTF-8"))
        }
    }

    @Test func sizeLimitCountsDecompressedBytes() throws {
        let directory = try TemporaryDirectory()
        let text = "{\"version\": 1, \"base\": \"http://h/\", \"files\": [" + String(repeating: " ", count: 100_000) + "]}"
        let packed = try directory.write("m.gz", gzip(Data(text.utf8)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: packed)).count < 10_000)
        #expect(throws: ManifestError(manifest: packed, problem: "the manifest is larger than the 64.0 KiB limit once decompressed")) {
            try ManifestReader.read(path: packed, sizeLimit: 65536)
        }
        #expect(try ManifestReader.read(path: packed, sizeLimit: 200_000).entries.isEmpty)
    }

    /// A gzip bomb of spaces (8 KiB packed, 8 MiB unpacked) is refused once the blank run passes the limit;
    /// the scan for the first byte once restarted at the top with each 4 KiB: 10 s in a release build, minutes in a debug one.
    @Test func longLeadingWhiteSpaceIsRefusedInBothEncodings() throws {
        let directory = try TemporaryDirectory()
        let limit = ManifestInput.maximumLeadingBlank
        for body in ["<x/>", "{}"] {
            let packed = try directory.write("m.gz", gzip(Data((String(repeating: " ", count: 8 << 20) + body).utf8)))
            #expect(throws: ManifestError(manifest: packed, problem: "the manifest starts with more than \(limit) bytes of white space")) {
                try ManifestReader.read(path: packed)
            }
        }
        let blanks = "\u{FEFF}" + String(repeating: " \n\t\r", count: limit / 4 - 1)
        let json = blanks + "{\"version\": 1, \"base\": \"http://h/\", \"files\": [{\"path\": \"a\", \"size\": 1, \"crc32\": \"00000001\"}]}"
        let xml = blanks + "<manifest version=\"1\" base=\"http://h/\"><file path=\"a\" size=\"1\" crc32=\"00000001\"/></manifest>"
        #expect(try readManifest(json).entries.count == 1)
        #expect(try readManifest(xml) == readManifest(json))
        for blankOnly in ["", " ", "\u{FEFF}", "\u{FEFF}\n\n"] {
            #expect(manifestError(blankOnly) == "m: the manifest is empty")
        }
    }

    @Test func truncatedAndTrailingGzipAreRefused() throws {
        let directory = try TemporaryDirectory()
        let packed = gzip(Data("{\"version\": 1, \"base\": \"http://h/\", \"files\": []}".utf8))
        let truncated = try directory.write("t", packed.dropLast(6))
        #expect(throws: ManifestError(manifest: truncated, problem: "the gzip data is truncated")) {
            try ManifestReader.read(path: truncated)
        }
        let trailing = try directory.write("g", packed + Data("junk".utf8))
        #expect(throws: ManifestError(manifest: trailing, problem: "unexpected data after the end of the gzip stream")) {
            try ManifestReader.read(path: trailing)
        }
        let twoMembers = try directory.write("two", gzip(Data("{\"version\": 1, \"base\": ".utf8)) + gzip(Data("\"http://h/\", \"files\": []}".utf8)))
        #expect(try ManifestReader.read(path: twoMembers).base == "http://h/")
    }
}

/// gzip-compresses `data` with zlib.
func gzip(_ data: Data) -> Data {
    var stream = z_stream()
    deflateInit2_(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    defer { deflateEnd(&stream) }
    var input = [UInt8](data)
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
    let produced = input.withUnsafeMutableBufferPointer { inBuffer in
        output.withUnsafeMutableBufferPointer { outBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            stream.next_out = outBuffer.baseAddress
            stream.avail_out = uInt(outBuffer.count)
            deflate(&stream, Z_FINISH)
            return outBuffer.count - Int(stream.avail_out)
        }
    }
    return Data(output[0..<produced])
}
