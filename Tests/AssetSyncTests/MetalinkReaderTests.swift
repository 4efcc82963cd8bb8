import Foundation
import Testing
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
import TestSupport

/// Metalinks read as manifests: versions 4 and 3 told apart by the root's namespace, files mapped
/// onto entries proven by their SHA-256, urls in their order of preference, what is left out
/// noted once, and what no manifest may be refused naming the file.
@Suite struct MetalinkReaderTests {
    static let sha256 = "f0ad929cd259957e160ea442eb80986b5f01a3ff1d0b1b3d4e5c4a5b6c7d8e9f"
    static let digest = try! ManifestRules.sha256(sha256)

    static let version4 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:x="http://example.com/extension">
          <generator>MirrorBrain/2.19.0</generator>
          <published>2026-12-01T00:00:00Z</published>
          <x:stats><file name="not/a/file"><size>1</size></file></x:stats>
          <file name="dir/example.iso">
            <size> 14471447 </size>
            <description>An example &amp; more</description>
            <hash type="md5">d1b36a4cb1b22a1e04ba7e3bfdd2ebba</hash>
            <hash type="sha-256">\(sha256)</hash>
            <pieces length="262144" type="sha-1"><hash>a9993e364706816aba3e25717850c26c9cd0d89d</hash></pieces>
            <url location="de" priority="20">http://b.example/example.iso</url>
            <url location="us" priority="10">https://a.example/example.iso?x=1&amp;y=2</url>
            <url priority="5">ftp://ftp.example/example.iso</url>
            <url>http://c.example/example.iso</url>
            <metaurl mediatype="torrent" priority="1">http://a.example/example.iso.torrent</metaurl>
            <x:note>anything</x:note>
          </file>
          <file name="second.bin"><size>0</size><hash type="sha-256">\(sha256)</hash><url>http://a.example/second.bin</url></file>
        </metalink>
        """

    @Test func aMetalink4FileIsAnEntryProvenByItsSHA256WithItsURLsLowerPriorityFirst() throws {
        let manifest = try readManifest(Self.version4)
        #expect(manifest.entries.count == 2, "an extension's markup is skipped with all it holds")
        let entry = manifest.entries[0]
        #expect(entry.path == "dir/example.iso" && entry.size == 14_471_447)
        #expect(entry.crc32 == nil && entry.sha256 == Self.digest)
        #expect(entry.url == "https://a.example/example.iso?x=1&y=2")
        #expect(entry.mirrors == ["http://b.example/example.iso", "http://c.example/example.iso"], "a url without a priority comes last")
        #expect(manifest.base == nil && manifest.entries[1].url == "http://a.example/second.bin")
        #expect(manifest.notes == [MetalinkWalker.piecesNote, MetalinkWalker.otherSchemeNote, MetalinkWalker.metaurlNote])
    }

    @Test func aMetalink3FileTakesItsURLsHigherPreferenceFirstAndSkipsOtherKinds() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <metalink version="3.0" xmlns="http://www.metalinker.org/" type="dynamic" generator="mirrormanager"
                      xmlns:mm0="http://fedorahosted.org/mirrormanager">
              <files>
                <file name="repomd.xml">
                  <mm0:timestamp>1700000000</mm0:timestamp>
                  <size>6003</size>
                  <verification>
                    <hash type="md5">d1b36a4cb1b22a1e04ba7e3bfdd2ebba</hash>
                    <hash type="sha256">\(Self.sha256)</hash>
                  </verification>
                  <resources maxconnections="1">
                    <url protocol="http" type="http" location="US" preference="50">http://low.example/repomd.xml</url>
                    <url protocol="https" type="https" location="DE" preference="100">https://high.example/repomd.xml</url>
                    <url protocol="rsync" type="rsync" location="US" preference="100">rsync://r.example/repomd.xml</url>
                    <url type="bittorrent" preference="100">http://t.example/repomd.xml.torrent</url>
                    <url>http://none.example/repomd.xml</url>
                  </resources>
                </file>
              </files>
            </metalink>
            """
        let manifest = try readManifest(text)
        let entry = try #require(manifest.entries.first)
        #expect(entry.path == "repomd.xml" && entry.size == 6003 && entry.sha256 == Self.digest && entry.crc32 == nil)
        #expect(entry.url == "https://high.example/repomd.xml")
        #expect(entry.mirrors == ["http://low.example/repomd.xml", "http://none.example/repomd.xml"])
        #expect(manifest.notes == [MetalinkWalker.otherSchemeNote])
    }

    @Test func aGzippedMetalinkAndOneFromAPipeReadAsThePlainOne() throws {
        let directory = try TemporaryDirectory()
        let plain = try ManifestReader.read(path: try directory.write("plain.meta4", Self.version4))
        let packed = try directory.write("packed.meta4.gz", gzip(Data(Self.version4.utf8)))
        #expect(try ManifestReader.read(path: packed) == plain)
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(Self.version4.utf8))
        try pipe.fileHandleForWriting.close()
        #expect(try ManifestReader.read(descriptor: pipe.fileHandleForReading.fileDescriptor, name: "-") == plain)
    }

    @Test func aPrefixedRootIsReadByItsNamespace() throws {
        let text = """
            <ml:metalink xmlns:ml="urn:ietf:params:xml:ns:metalink"><ml:file name="a"><ml:size>3</ml:size>
            <ml:hash type="SHA-256">\(Self.sha256)</ml:hash><ml:url>http://h/a</ml:url></ml:file></ml:metalink>
            """
        #expect(try readManifest(text).entries == [ManifestEntry(path: "a", size: 3, crc32: nil, sha256: Self.digest, url: "http://h/a")])
    }

    /// A Metalink 4 holding `body` in its one `<file name="a">`.
    static func file(_ body: String, name: String = "a") -> String {
        "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n<file name=\"\(name)\">\(body)</file>\n</metalink>"
    }

    static let complete = "<size>3</size><hash type=\"sha-256\">\(sha256)</hash><url>http://h/a</url>"

    @Test(arguments: [
        (file("<hash type=\"sha-256\">\(sha256)</hash><url>http://h/a</url>"),
         "m:2:1: <file> \"a\": has no <size>; a Metalink must give each file's size"),
        (file("<size>3</size><hash type=\"md5\">d1b36a4cb1b22a1e04ba7e3bfdd2ebba</hash><url>http://h/a</url>"),
         "m:2:1: <file> \"a\": has no SHA-256 <hash>; a Metalink's files are proven by their SHA-256, which it must give"),
        (file("<size>3</size><hash type=\"sha-256\">\(sha256)</hash><url>ftp://h/a</url>"),
         "m:2:1: <file> \"a\": has no http or https <url> to fetch it from"),
        (file(complete, name: "../a"), "m:2:1: <file> \"../a\": path must not have a \".\" or \"..\" component: \"../a\""),
        (file(complete + "<size>4</size>"), "m:2:143: <file> \"a\": <size> is given twice"),
        (file("<size>-3</size>" + complete), "m:2:16: <file> \"a\": size must not be negative: \"-3\""),
        (file(complete + "<url priority=\"0\">http://h/b</url>"),
         "m:2:143: <file> \"a\": priority must be a whole number from 1 to 999999: \"0\""),
        (file(complete + "<url>http://user:secret@h/b</url>"),
         "m:2:143: <file> \"a\": url must not carry credentials: \"http://user:secret@h/b\""),
        (file(complete + "<url>http://h/a</url>"), "m:2:1: <file> \"a\": url is listed twice (as the file's url): \"http://h/a\""),
        (file(complete + "<sizes>3</sizes>"), "m:2:143: <file> \"a\": unknown element <sizes> in <file> of a Metalink 4"),
        (file("<size>3<b/></size>"), "m:2:23: <file> \"a\": <b> is not allowed in <size>, which holds only text"),
        (file(complete + "hello"), "m:2:122: <file> \"a\": text is not allowed here: \"hello\""),
        ("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file><size>3</size></file></metalink>",
         "m:1:51: <file> is missing its name attribute"),
        ("<metalink xmlns=\"urn:example:other\"/>",
         "m:1:1: <metalink> is in the namespace \"urn:example:other\", which is neither Metalink 4's (urn:ietf:params:xml:ns:metalink) nor Metalink 3's (http://www.metalinker.org/)"),
        ("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"><file name=\"a\"><size>3</size><![CDATA[x]]></file></metalink>",
         "m:1:80: a CDATA section is not allowed; write its text with character references"),
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE metalink [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"/>",
         "m:2:1: a DOCTYPE (or any other markup declaration) is not allowed; manifests may use only XML's predefined entities and character references"),
    ])
    func refuses(_ text: String, _ expected: String) {
        #expect(manifestError(text) == expected)
    }

    @Test func twoFilesOfOnePathAreRefusedNamingTheFile() {
        let text = "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n<file name=\"a\">\(Self.complete)</file>\n"
            + "<file name=\"a\">\(Self.complete)</file>\n</metalink>"
        #expect(manifestError(text) == "m:3:1: <file> \"a\": path is listed twice (also at line 2, column 1): \"a\"")
    }

    @Test func hostileMetalinksAreRefusedWithoutCrashingOrHanging() throws {
        // Deep nesting inside a skipped extension element: libxml2's depth limit stops it, the walker keeps no stack of it.
        let deep = "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\" xmlns:x=\"urn:x\">"
            + String(repeating: "<x:a>", count: 100_000) + String(repeating: "</x:a>", count: 100_000) + "</metalink>"
        #expect(manifestError(deep)?.contains("not well-formed XML") == true)
        // Text is allowed in a Metalink, but not without bound.
        let long = Self.file("<description>" + String(repeating: "x", count: 2 << 20) + "</description>" + Self.complete)
        #expect(manifestError(long) == "m:2:1048605: more than 1048576 bytes of text, white space and comments in a row")
        let longURL = Self.file(Self.complete + "<url>http://h/" + String(repeating: "x", count: 9000) + "</url>")
        #expect(manifestError(longURL) == "m:2:143: <file> \"a\": <url> holds more than 8192 bytes")
        // Many files: each is an entry, and the builder's rules hold across them.
        var many = "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n"
        for index in 0..<20_000 { many += "<file name=\"d/\(index)\">\(Self.complete.replacingOccurrences(of: "h/a", with: "h/\(index)"))</file>\n" }
        many += "</metalink>"
        #expect(try readManifest(many).entries.count == 20_000)
        // Many urls for one file: each is checked against the others by a table, once; a repeat is still found.
        var urls = ""
        for index in 0..<100_000 { urls += "<url>http://m\(index).example/a</url>" }
        let mirrored = try readManifest(Self.file(Self.complete + urls)).entries[0]
        #expect(mirrored.url == "http://h/a" && mirrored.mirrors.count == 100_000)
        #expect(manifestError(Self.file(Self.complete + urls + "<url>HTTP://m7.example/a</url>"))
            == "m:2:1: <file> \"a\": url is listed twice (as an earlier mirror, spelled \"http://m7.example/a\"): \"HTTP://m7.example/a\"")
    }

    @Test func aManifestStillRefusesTextAndAMetalinkNameElsewhereIsNoMetalink() {
        #expect(manifestError("<manifest version=\"1\" base=\"http://h/\">hello</manifest>")
            == "m:1:40: text is not allowed here; a manifest holds only elements and attributes")
        #expect(manifestError("<manifest version=\"1\" base=\"http://h/\"><metalink/></manifest>")
            == "m:1:40: unknown element <metalink> in <manifest> (expected <file> or <mirror>)")
    }

    @Test func aMetalinkTheWriterRendersReadsBackWithEverySourceInOrder() throws {
        let manifest = Manifest(
            base: "http://h/", mirrors: ["https://m.example/x/"],
            entries: [ManifestEntry(path: "a b/c&d.bin", size: 3, crc32: 7, sha256: Self.digest, mirrors: ["http://own.example/c"])])
        let text = ManifestWriter.render(manifest, as: .meta4)
        #expect(text.contains("<file name=\"a b/c&amp;d.bin\">") && !text.contains("crc32"))
        let read = try readManifest(text)
        let entry = try #require(read.entries.first)
        #expect(entry.path == "a b/c&d.bin" && entry.size == 3 && entry.crc32 == nil && entry.sha256 == Self.digest)
        #expect([entry.url!] + entry.mirrors == manifest.sources(of: manifest.entries[0]).map(\.url))
        #expect(read.notes.isEmpty)
    }

    /// `manifests/metalink/`: Metalinks in the shapes MirrorBrain (version 4), MirrorCache and
    /// MirrorManager (version 3) publish, written from their generators' formats.
    @Test(arguments: [
        ("mirrorbrain.meta4", "example-15.6-DVD-x86_64.iso", Int64(4_700_372_992),
         "6b1f0e3c2a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f",
         ["http://mirror.net.example.de/", "https://ftp.uni.example.de/", "https://mirror.example.nl/", "http://mirrors.example.com/"],
         [MetalinkWalker.piecesNote, MetalinkWalker.metaurlNote, MetalinkWalker.otherSchemeNote]),
        ("mirrorcache.metalink", "example-15.6-NET-x86_64-Media.iso", Int64(204_472_320),
         "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         ["https://ftp.uni.example.de/", "http://mirror.example.de/", "https://mirror.example.nl/", "http://mirrors.example.com/",
          "https://download.example.org/"],
         [MetalinkWalker.piecesNote]),
        ("mirrormanager.metalink", "repomd.xml", Int64(6003),
         "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
         ["https://mirror.example.de/", "http://mirror.example.de/", "https://mirror.example.at/", "https://internal.example.de/",
          "http://dl.example.com/"],
         [MetalinkWalker.otherSchemeNote]),
    ])
    func aFixtureInAMirrorNetworksShapeIsRead(
        _ name: String, _ path: String, _ size: Int64, _ sha256: String, _ hosts: [String], _ notes: [String]
    ) throws {
        let manifest = try ManifestReader.read(path: packageRoot.appendingPathComponent("manifests/metalink/" + name).path)
        let entry = try #require(manifest.entries.first)
        #expect(manifest.entries.count == 1 && entry.path == path && entry.size == size && entry.crc32 == nil)
        #expect(entry.sha256 == (try ManifestRules.sha256(sha256)), "the SHA-256, not an alternate's")
        let sources = [entry.url!] + entry.mirrors
        #expect(sources.count == hosts.count)
        for (source, host) in zip(sources, hosts) { #expect(source.hasPrefix(host), "\(sources)") }
        #expect(sources.allSatisfy { $0.hasSuffix("/" + path) })
        #expect(manifest.notes == notes)
    }
}
