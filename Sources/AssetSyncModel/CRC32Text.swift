/// CRC-32 values as the manifest writes them.
public enum CRC32Text {
    public static func hex(_ value: UInt32) -> String { HexDigits.padded(value, width: 8) }
}
