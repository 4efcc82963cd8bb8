import Foundation
import Testing
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
import TestSupport

/// S3's answers as `manifest s3://` reads them: ListObjectsV2 pages and GetObjectAttributes, as S3
/// documents them, and the ones a hostile or broken store could send.
@Suite struct S3AnswerTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func file(_ text: String) throws -> String {
        let path = directory.path + "/answer-\(UUID().uuidString).xml"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aListingPageGivesItsObjectsAndTheNextToken() throws {
        let page = try BucketListingPage.read(path: file("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>assets</Name><Prefix>set/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>
              <Contents><Key>set/a &amp; b.bin</Key><LastModified>2026-12-01T00:00:00.000Z</LastModified>
                <ETag>&quot;9e107d9d372bb6826bd81d3542a419d6&quot;</ETag><ChecksumAlgorithm>CRC32</ChecksumAlgorithm><Size>43</Size>
                <StorageClass>STANDARD</StorageClass></Contents>
              <Contents><Key>set/big.bin</Key><ETag>"c0ffee-12"</ETag><Size>104857600</Size></Contents>
              <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """), name: "the listing")
        #expect(page.objects == [
            .init(key: "set/a & b.bin", size: 43, etag: "\"9e107d9d372bb6826bd81d3542a419d6\""),
            .init(key: "set/big.bin", size: 104_857_600, etag: "\"c0ffee-12\""),
        ])
        #expect(page.continuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        let last = try BucketListingPage.read(path: file("""
            <ListBucketResult><IsTruncated>false</IsTruncated><NextContinuationToken>stale</NextContinuationToken></ListBucketResult>
            """), name: "the listing")
        #expect(last.objects.isEmpty && last.continuationToken == nil)
    }

    @Test(arguments: [
        ("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>", "truncated, without a NextContinuationToken"),
        ("<ListBucketResult><Contents><Key>a</Key></Contents></ListBucketResult>", "an object without a Key or a Size"),
        ("<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>", "a Size that is no byte count"),
        ("<Error><Code/></Error>", "its root element is \"Error\""),
        ("<!DOCTYPE x [<!ENTITY e \"e\">]><ListBucketResult/>", "DOCTYPE"),
    ])
    func aMalformedOrHostileListingIsRefused(_ text: String, _ problem: String) throws {
        let path = try file(text)
        #expect { try BucketListingPage.read(path: path, name: "the listing") } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func onlyAWholeObjectsStoredCRC32IsTheFilesOwn() throws {
        let whole = try ObjectAttributes.read(path: file("""
            <GetObjectAttributesResponse><ETag>9e107d9d372bb6826bd81d3542a419d6</ETag>
              <Checksum><ChecksumCRC32>iH6F8A==</ChecksumCRC32><ChecksumType>FULL_OBJECT</ChecksumType></Checksum>
              <ObjectSize>11000</ObjectSize></GetObjectAttributesResponse>
            """), name: "attributes")
        #expect(whole.fileCRC32 == 0x887E_85F0 && whole.size == 11_000)
        // A composite, told by its type, or by the "-N" of its ETag where the store gives no type (moto's HEAD).
        let typed = try ObjectAttributes.read(path: file("""
            <GetObjectAttributesResponse><ETag>c0ffee-2</ETag><Checksum><ChecksumCRC32>BwRVuQ==</ChecksumCRC32>
            <ChecksumType>COMPOSITE</ChecksumType></Checksum></GetObjectAttributesResponse>
            """), name: "attributes")
        let untyped = try ObjectAttributes.read(path: file("""
            <GetObjectAttributesResponse><ETag>"c0ffee-2"</ETag><Checksum><ChecksumCRC32>BwRVuQ==</ChecksumCRC32></Checksum></GetObjectAttributesResponse>
            """), name: "attributes")
        let none = try ObjectAttributes.read(path: file("<GetObjectAttributesResponse><ETag>x</ETag></GetObjectAttributesResponse>"), name: "a")
        let broken = try ObjectAttributes.read(path: file("""
            <GetObjectAttributesResponse><ETag>x</ETag><Checksum><ChecksumCRC32>not base64!</ChecksumCRC32></Checksum></GetObjectAttributesResponse>
            """), name: "a")
        #expect(typed.fileCRC32 == nil && untyped.fileCRC32 == nil && none.fileCRC32 == nil && broken.fileCRC32 == nil)
        #expect(ObjectAttributes.isMultipart("\"abc-17\"") && !ObjectAttributes.isMultipart("\"abc-\"") && !ObjectAttributes.isMultipart("abc"))
    }
}
