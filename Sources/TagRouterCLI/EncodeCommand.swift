import FoundationEssentials
import NDEF

/// `tagrouter encode`: encode records to an NDEF message (hex) or a Type 2 memory image
enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode records to an NDEF message (hex) or a Type 2 memory image"
    static let usage = """
        Usage: tagrouter encode RECORD… [--memory TAG [--uid HEX]] [--chunk-size N]

        Records (repeatable; the message holds them in command-line order):
          --uri URI                       a URI record (shortest identifier code)
          --text TEXT [--lang LANG]       a Text record in UTF-8 (language default en)
          --mime TYPE (--data STRING | --data-file PATH)
                                          a media-type record
          --json JSON                     an application/json record (checked to be JSON)
          --external TYPE (--data STRING | --data-file PATH)
                                          an external-type record (domain:name)
          --aar PACKAGE                   an Android Application Record

        Output:
          (default)        the message as hex
          --memory TAG     a full Type 2 memory image as hex, pages from 0, with the
                           message in its data area: ntag213, ntag215, ntag216, ultralight
          --uid HEX        the 7-byte UID of that image (default 04a1b2c3d4e5f6)
          --chunk-size N   split payloads longer than N bytes into chunks

        Example:
          tagrouter encode --uri https://example.com --text "Front door" --lang en
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let memory = try arguments.option("--memory")
        let uid = try arguments.option("--uid")
        let chunkSize = try arguments.option("--chunk-size")
        let steps = try arguments.orderedOptions(EncodeRecords.optionNames)
        try arguments.finish()

        let records = try EncodeRecords.build(steps)
        var chunk: Int?
        if let chunkSize {
            guard let size = Int(chunkSize), size > 0 else { throw .usage("--chunk-size needs a positive number") }
            chunk = size
        }
        let message = NDEFMessage(records: records).encoded(chunkSize: chunk)
        guard let memory else {
            print(Hex.string(message))
            return
        }
        guard let tagType = Type2TagType(name: memory) else {
            throw .usage("--memory takes ntag213, ntag215, ntag216 or ultralight, not '\(memory)'")
        }
        guard let uidBytes = Hex.bytes(uid ?? "04a1b2c3d4e5f6"), uidBytes.count == 7 else {
            throw .usage("--uid needs 7 bytes of hex")
        }
        do {
            print(Hex.string(try Type2Memory.image(uid: uidBytes, tagType: tagType, message: message)))
        } catch {
            throw .data("\(error.kind.rawValue): \(error.detail)")
        }
    }
}
