/// CRC-32 values as the manifest writes them.
package enum CRC32Text {
    package static func hex(_ value: UInt32) -> String { HexDigits.padded(value, width: 8) }
}
