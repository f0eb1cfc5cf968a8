import Foundation
import NDEF
import TagCore
import TagKit
import TagReader

/// `tagrouter write`: write an NDEF message to a tag
enum WriteCommand: Command {
    static let name = "write"
    static let summary = "write an NDEF message to a tag"
    static let usage = """
        Usage: tagrouter write [--device CONNSTRING] [--if-busy exit|wait] [--timeout SECONDS] RECORD… [--append] [--lock --yes]
               tagrouter write [--device CONNSTRING] [--if-busy exit|wait] --from FILE [--append] [--lock --yes]

        Writes an NDEF message to the tag on the reader (or the next one to arrive),
        then reads it back to verify. Refuses, before writing anything, a message that
        does not fit and a read-only tag. A reader that cannot be opened fails at once,
        with the reason.

        Records (repeatable; the message holds them in command-line order, as `encode`):
          --uri URI                       a URI record
          --text TEXT [--lang LANG]       a Text record (language default en)
          --mime TYPE (--data STRING | --data-file PATH)
                                          a media-type record
          --json JSON                     an application/json record
          --external TYPE (--data STRING | --data-file PATH)
                                          an external-type record (domain:name)
          --aar PACKAGE                   an Android Application Record
          --from FILE                     the whole message: JSON ({"records": […]}, as
                                          `decode` prints it) or hex

        \(ReaderOptions.usage)
          --timeout SECONDS     how long to wait for a tag (default 30)
          --append              keep the records already on the tag, add these after them
          --lock                make the tag read-only after writing: IRREVERSIBLE, needs --yes

        Example:
          tagrouter write --uri https://www.home-assistant.io/tag/front-door --text "Front door"
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: false)
        let timeout = try ReaderOptions.seconds(try arguments.option("--timeout"), option: "--timeout", default: .seconds(30))
        let append = arguments.flag("--append")
        let lock = arguments.flag("--lock")
        let confirmed = arguments.flag("--yes")
        let from = try arguments.option("--from")
        let steps = try arguments.orderedOptions(EncodeRecords.optionNames)
        try arguments.finish()
        if lock, !confirmed {
            throw .usage("--lock makes the tag read-only for ever; add --yes to confirm")
        }
        let records: [NDEFRecord]
        switch (from, steps.isEmpty) {
        case (let path?, true): records = try WriteSource.records(fromFile: path)
        case (nil, false): records = try EncodeRecords.build(steps)
        case (nil, true): throw .usage("give the records to write (--uri, --text, --mime, --json, …) or --from FILE")
        case (_?, false): throw .usage("give either records or --from FILE, not both")
        }
        let outcome: WriteOutcome
        do {
            let device = reader.ifBusy == .wait ? reader.devices[0] : try ReaderOptions.opening(reader.devices[0])
            ReaderOptions.promptForTag(on: device)
            outcome = try await TagAccess.withTag(device: device, timeout: timeout, ifBusy: reader.ifBusy) { tag, driver in
                try WriteOutcome.write(records, to: tag, with: driver, append: append, lock: lock)
            }
        } catch let error as TagDriverError {
            switch error {
            case .transport(.tagRemoved):
                throw .runtime("the tag left the field before the write was done and verified; hold it still and write again")
            case .transport: throw .runtime(error.description)
            default: throw .data(error.description)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw .runtime("\(error)")
        }
        print(outcome.summary)
    }
}

/// What `write` did to the tag, for its one-line report.
struct WriteOutcome: Sendable {
    var tag: TagInfo
    var records: Int
    var bytes: Int
    var locked: Bool

    var summary: String {
        "wrote \(records) record\(records == 1 ? "" : "s") (\(bytes) bytes) to \(tag.type) \(tag.uid.hex), read back and verified"
            + (locked ? "; the tag is now read-only" : "")
    }

    /// Builds the message (after the tag's own records with `append`), writes it
    /// (the driver refuses what does not fit or a read-only tag, and verifies), and locks.
    static func write(
        _ records: [NDEFRecord], to tag: TagInfo, with driver: any NDEFTagDriver, append: Bool, lock: Bool
    ) throws -> WriteOutcome {
        var message = records
        if append, let existing = try driver.read().message {
            do {
                message = try NDEFMessage(bytes: existing).records.filter { $0.tnf != .empty } + records
            } catch {
                throw CLIError.data("the message on the tag is damaged (\(error)); write without --append to replace it")
            }
        }
        let bytes = NDEFMessage(records: message).encoded()
        try driver.write(message: bytes)
        if lock { try driver.lock() }
        return WriteOutcome(tag: tag, records: message.count, bytes: bytes.count, locked: lock)
    }
}
