import Testing
@testable import AssetSyncManifestIO
@testable import AssetSyncModel

/// Manifest-level mirror bases: read from both encodings, written back, and the order and
/// origin of the sources each entry gets from them.
@Suite struct ManifestMirrorTests {
    static let xml = """
        <manifest version="1" base="https://cdn.example.com/game/">
          <mirror base="https://eu.example.com/game/"/>
          <mirror base="https://us.example.com/assets/"/>
          <file path="v/intro video.mp4" size="1" crc32="00000001"/>
          <file path="a.zip" size="1" crc32="00000002" url="packs/a.zip?v=2">
            <mirror url="https://own.example.com/a.zip"/>
          </file>
          <file path="b.zip" size="1" crc32="00000003" url="https://other.example.com:8443/b.zip"/>
          <file path="c.zip" size="1" crc32="00000004" url="../elsewhere/c.zip"/>
          <file path="d.zip" size="1" crc32="00000005" url="https://cdn.example.com/game/d.zip"/>
        </manifest>
        """

    static let json = """
        {"version": 1, "base": "https://cdn.example.com/game/",
         "mirrors": ["https://eu.example.com/game/", "https://us.example.com/assets/"],
         "files": [
          {"path": "v/intro video.mp4", "size": 1, "crc32": "00000001"},
          {"path": "a.zip", "size": 1, "crc32": "00000002", "url": "packs/a.zip?v=2", "mirrors": ["https://own.example.com/a.zip"]},
          {"path": "b.zip", "size": 1, "crc32": "00000003", "url": "https://other.example.com:8443/b.zip"},
          {"path": "c.zip", "size": 1, "crc32": "00000004", "url": "../elsewhere/c.zip"},
          {"path": "d.zip", "size": 1, "crc32": "00000005", "url": "https://cdn.example.com/game/d.zip"}]}
        """

    @Test("both encodings read the mirror bases, in order, and give the same manifest")
    func bothEncodings() throws {
        let xml = try readManifest(Self.xml)
        #expect(xml.mirrors == ["https://eu.example.com/game/", "https://us.example.com/assets/"])
        #expect(try readManifest(Self.json) == xml)
    }

    @Test("an entry's primary, then its own mirrors, then each mirror base + its relative part")
    func order() throws {
        let manifest = try readManifest(Self.xml)
        func sources(_ index: Int) -> [String] { manifest.sources(of: manifest.entries[index]).map { "\($0.url) @ \($0.origin)" } }
        #expect(sources(0) == [
            "https://cdn.example.com/game/v/intro%20video.mp4 @ https://cdn.example.com/game/",
            "https://eu.example.com/game/v/intro%20video.mp4 @ https://eu.example.com/game/",
            "https://us.example.com/assets/v/intro%20video.mp4 @ https://us.example.com/assets/",
        ])
        #expect(sources(1) == [
            "https://cdn.example.com/game/packs/a.zip?v=2 @ https://cdn.example.com/game/",
            "https://own.example.com/a.zip @ https://own.example.com:443",
            "https://eu.example.com/game/packs/a.zip?v=2 @ https://eu.example.com/game/",
            "https://us.example.com/assets/packs/a.zip?v=2 @ https://us.example.com/assets/",
        ])
        // An absolute url, even one under base, and a relative one that leaves base's directory, get no mirror base.
        #expect(sources(2) == ["https://other.example.com:8443/b.zip @ https://other.example.com:8443"])
        #expect(sources(3) == ["https://cdn.example.com/elsewhere/c.zip @ https://cdn.example.com:443"])
        #expect(sources(4) == ["https://cdn.example.com/game/d.zip @ https://cdn.example.com:443"])
    }

    @Test("a relative url is placed under a mirror base as resolution spells base (scheme case, dot segments)")
    func baseAsResolutionSpellsIt() throws {
        let manifest = try readManifest("""
            <manifest version="1" base="HTTP://h/a/./b/"><mirror base="http://m/x/"/>
            <file path="f" size="1" crc32="00000001" url="f.bin"/></manifest>
            """)
        #expect(manifest.sources(of: manifest.entries[0]).map(\.url) == ["http://h/a/b/f.bin", "http://m/x/f.bin"])
    }

    @Test("the flag that remembers a relative url sits beside the CRC, and the fields most entries leave out share one word")
    func entryLayout() {
        // path (two words), size, crc32 and the flag in one word, and one word for the box that holds
        // the url, mirrors, SHA-256 and chunk list of the entries that have any (nil for the others).
        #expect(MemoryLayout<ManifestEntry>.stride == 40)
    }

    @Test("an origin is scheme, host and port, lowercased, with the scheme's default port")
    func origins() {
        #expect(URLRules.origin(of: "HTTP://Example.COM/a") == "http://example.com:80")
        #expect(URLRules.origin(of: "https://h:8443/a?q") == "https://h:8443")
        #expect(URLRules.origin(of: "http://[::1]/a") == "http://[::1]:80")
        #expect(URLRules.origin(of: "http://[::1]:81/a") == "http://[::1]:81")
    }

    @Test("the writer keeps the mirror bases in both encodings")
    func roundTrip() throws {
        let manifest = Manifest(
            base: "https://cdn.example.com/game/", mirrors: ["https://eu.example.com/game/", "https://us.example.com/a&b/"],
            entries: [ManifestEntry(path: "a", size: 1, crc32: 1)])
        for format in [ManifestWriter.Format.xml, .json] {
            #expect(try readManifest(ManifestWriter.render(manifest, as: format)) == manifest)
        }
    }

    @Test("mirror bases are refused where they break a rule, naming where", arguments: [
        (#"<manifest version="1" base="http://h/"><mirror base="http://m/x"/></manifest>"#,
         #"m:1:40: mirror base must end with "/" (entries are fetched at mirror base + path): "http://m/x""#),
        (#"<manifest version="1" base="http://h/"><mirror base="http://m/?q/"/></manifest>"#,
         #"m:1:40: mirror base must end with "/" (entries are fetched at mirror base + path): "http://m/?q/""#),
        (#"<manifest version="1" base="http://h/"><mirror base="m/"/></manifest>"#,
         #"m:1:40: mirror base must be an absolute URL: "m/""#),
        (#"<manifest version="1" base="http://h/"><mirror/></manifest>"#,
         "m:1:40: <mirror> under <manifest> is missing its base attribute"),
        (#"<manifest version="1" base="http://h/"><mirror base="http://m/"><mirror base="http://n/"/></mirror></manifest>"#,
         "m:1:65: unknown element <mirror> in <mirror> (expected nothing)"),
        (#"<manifest version="1" base="http://h/"><file path="a" size="1" crc32="00000000"><mirror base="http://m/"/></file></manifest>"#,
         "m:1:81: <file>: unknown attribute base on <mirror> (allowed: url)"),
        (#"{"version": 1, "base": "http://h/", "mirrors": ["http://u:p@m/"], "files": []}"#,
         #"m:1:49: mirrors[0] must not carry credentials: "http://u:p@m/""#),
        (#"{"version": 1, "mirrors": ["http://m/"], "base": "http://m/", "files": []}"#,
         #"m:1:50: base is listed twice (as the base or an earlier mirror): "http://m/""#),
        (#"{"version": 1, "base": "http://h/", "mirrors": [3], "files": []}"#,
         "m:1:49: mirrors[0] must be a string, not a number"),
    ])
    func refused(_ text: String, _ expected: String) {
        #expect(manifestError(text) == expected)
    }

    /// The base under another spelling, in both encodings: each is the base listed twice.
    @Test("a mirror base that is the base under another spelling is refused, naming the mirror", arguments: [
        "HTTP://H/", "http://H/./", "http://H/x/../", "http://h:80/", "http://%48/",
    ])
    func mirrorBaseSpelledAnotherWay(_ spelling: String) {
        let column = 41 + spelling.utf8.count
        #expect(manifestError(#"<manifest version="1" base="http://H/"><mirror base="\#(spelling)"/></manifest>"#)
            == #"m:1:40: mirror base is listed twice (as the base or an earlier mirror, spelled "http://H/"): "\#(spelling)""#)
        #expect(manifestError(#"{"version": 1, "base": "http://H/", "mirrors": ["http://m/", "\#(spelling)"], "files": []}"#)
            == #"m:1:62: mirrors[1] is listed twice (as the base or an earlier mirror, spelled "http://H/"): "\#(spelling)""#)
        // The base after its mirrors (JSON has no order) and a mirror twice.
        #expect(manifestError(#"{"version": 1, "mirrors": ["\#(spelling)"], "base": "http://H/", "files": []}"#)
            == #"m:1:\#(column): base is listed twice (as the base or an earlier mirror, spelled "\#(spelling)"): "http://H/""#)
        #expect(manifestError(#"{"version": 1, "base": "http://b/", "mirrors": ["http://H/", "\#(spelling)"], "files": []}"#)
            == #"m:1:62: mirrors[1] is listed twice (as the base or an earlier mirror, spelled "http://H/"): "\#(spelling)""#)
    }

    @Test("an entry's mirror that is its url, base + its path or an earlier mirror under another spelling is refused, naming the entry")
    func entryMirrorSpelledAnotherWay() {
        #expect(manifestError(#"""
            <manifest version="1"><file path="f" size="1" crc32="00000001" url="http://H/f.bin"><mirror url="HTTP://h:80/./f.bin"/></file></manifest>
            """#) == #"m:1:23: <file>: mirror url is listed twice (as the file's url, spelled "http://H/f.bin"): "HTTP://h:80/./f.bin""#)
        #expect(manifestError(#"""
            <manifest version="1" base="http://H/"><file path="d/f" size="1" crc32="00000001"><mirror url="http://H/x/../d/f"/></file></manifest>
            """#) == #"m:1:40: <file>: mirror url is listed twice (as base + the file's path, spelled "http://H/d/f"): "http://H/x/../d/f""#)
        #expect(manifestError(#"""
            {"version": 1, "base": "http://H/", "files": [{"path": "f", "size": 1, "crc32": "00000001", "url": "f.bin", "mirrors": ["http://m/f", "http://M/%66"]}]}
            """#) == #"m:1:47: files[0]: mirrors[1] is listed twice (as an earlier mirror, spelled "http://m/f"): "http://M/%66""#)
        // A relative mirror is compared as resolved.
        #expect(manifestError(#"""
            {"version": 1, "base": "http://H/g/", "files": [{"path": "f", "size": 1, "crc32": "00000001", "url": "http://h/g/f", "mirrors": ["./f"]}]}
            """#) == #"m:1:49: files[0]: mirrors[0] is listed twice (as the file's url, spelled "http://h/g/f"): "http://H/g/f""#)
        // Other paths, queries and hosts are other sources.
        #expect(manifestError(#"""
            <manifest version="1" base="http://H/"><file path="f" size="1" crc32="00000001"><mirror url="http://H/F"/><mirror url="http://H/f?v=2"/><mirror url="http://m/f"/></file></manifest>
            """#) == nil)
    }

    @Test("an entry's own mirror that is also a mirror base + its relative part is asked once, as the first")
    func sourcesAreDistinct() throws {
        let manifest = try readManifest(#"""
            <manifest version="1" base="http://h/"><mirror base="http://m/game/"/>
            <file path="a b" size="1" crc32="00000001"><mirror url="HTTP://M/game/./a%20b"/></file></manifest>
            """#)
        #expect(manifest.sources(of: manifest.entries[0]).map { "\($0.url) @ \($0.origin)" } == [
            "http://h/a%20b @ http://h/",
            "HTTP://M/game/./a%20b @ http://m:80",
        ])
    }
}
