import FoundationEssentials
import NDEF
import OrderedJSON
import SystemKit
import TagCore
import TagKit
import TagReader
import TagRouterDaemon
import TagRuntime

/// `tagrouter write`: write an NDEF message to a tag
enum WriteCommand: Command {
    static let name = "write"
    static let summary = "write an NDEF message to a tag"
    static let about = """
        Writes an NDEF message to the tag on the reader (or the next one to arrive),
        then reads it back to verify. Refuses, before writing anything, a message that
        does not fit and a read-only tag. A reader that cannot be opened fails at once,
        with the reason. A password-protected NTAG 213/215/216 is written with
        --password-file; without it, or with another password, it is refused before
        anything is written (docs/protected-tags.md).

        When a running daemon answers on the control socket and runs the reader, the
        write goes through it: its reader writes the next tag placed (or the one lying
        there), and that tag is not routed as a tap.

        RECORD is, as for `encode`, one of:
        \(EncodeRecords.grammar)
        """
    static let fromOption = ValueOption<String?>("--from", placeholder: "FILE", help: "the whole message: JSON ({\"records\": […]}, as\n`decode` prints it) or hex", group: EncodeRecords.group)
    static let appendOption = CommandOption("--append", help: "keep the records already on the tag, add these after them")
    static let lockOption = CommandOption("--lock", help: "make the tag read-only after writing: IRREVERSIBLE, needs --yes")
    static let yesOption = CommandOption("--yes", help: "confirm --lock")
    static let passwordFileOption = ValueOption<String?>("--password-file", placeholder: "FILE", help: "the NTAG 213/215/216 password to write a protected tag with: 12 hex\ndigits, PWD then PACK, in a file of mode 600 (docs/protected-tags.md)")
    static let protectOption = CommandOption("--protect", help: "after writing, make writes need that password; reading stays open")
    static let options: [any DeclaredOption] = EncodeRecords.options + [fromOption] + ReaderOptions.options(multiple: false) + DaemonTagJob.options + [ReaderOptions.timeoutOption, appendOption, lockOption, yesOption, passwordFileOption, protectOption]
    static var synopses: [Synopsis] {
        let after: [Synopsis.Part] = [
            .optional(appendOption), .optional(.either([.option(lockOption), .option(yesOption)], [.optional(protectOption), .option(passwordFileOption)])),
        ]
        return [
            Synopsis(parts: DaemonTagJob.synopsisParts + [.summarized("RECORD…", EncodeRecords.declarations)] + after),
            Synopsis(parts: DaemonTagJob.synopsisParts + [.option(fromOption)] + after),
        ]
    }
    static let epilogue = """
        Example:
          tagrouter write --uri https://www.home-assistant.io/tag/front-door --text "Front door"
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: false)
        let timeout = try arguments.value(of: ReaderOptions.timeoutOption)
        let append = arguments.flag(appendOption)
        let lock = arguments.flag(lockOption)
        let confirmed = arguments.flag(yesOption)
        let protect = arguments.flag(protectOption)
        let passwordFile = try arguments.value(of: passwordFileOption)
        let from = try arguments.value(of: fromOption)
        let readerName = try arguments.value(of: DaemonTagJob.readerOption)
        let direct = arguments.flag(DaemonTagJob.directOption)
        let control = try ControlOption.clientPath(&arguments)
        let steps = try arguments.orderedValues(of: EncodeRecords.declarations)
        try arguments.finish()
        if lock, !confirmed {
            throw .usage("--lock makes the tag read-only for ever; add --yes to confirm")
        }
        if protect, passwordFile == nil { throw .usage("--protect needs --password-file FILE: the password to protect the tag with") }
        if protect, lock { throw .usage("a tag made read-only needs no password: give --protect or --lock, not both") }
        var password: TagPassword?
        if let passwordFile {
            do throws(PrivateFile.Problem) { password = try TagPassword(file: passwordFile) } catch { throw .data(error.message) }
        }
        let records: [NDEFRecord]
        switch (from, steps.isEmpty) {
        case (let path?, true): records = try WriteSource.records(fromFile: path)
        case (nil, false): records = try EncodeRecords.build(steps)
        case (nil, true): throw .usage("give the records to write (--uri, --text, --mime, --json, …) or --from FILE")
        case (_?, false): throw .usage("give either records or --from FILE, not both")
        }
        let order = TagWriteOrder(message: NDEFMessage(records: records).encoded(), append: append, lock: lock, protect: protect, password: password)
        if !direct {
            var fields = JSONObject([
                "message_hex": .string(Hex.string(order.message)), "append": .bool(append), "lock": .bool(lock), "protect": .bool(protect), "present": true,
            ])
            fields["password_hex"] = password.map { .string($0.hex) }
            if let reply = try DaemonTagJob.ask(
                "write", fields, control: control, reader: readerName, device: reader.given ? reader.devices[0] : nil, timeout: timeout)
            {
                print(reply.value(atPath: "written.summary")?.plainText ?? reply.serialized())
                return
            }
        }
        let report: TagWriteReport
        do {
            let device = reader.ifBusy == .wait ? reader.devices[0] : try ReaderOptions.opening(reader.devices[0])
            ReaderOptions.promptForTag(on: device)
            report = try await TagAccess.withTag(device: device, drivers: BuiltinPlugins.readers, timeout: timeout, ifBusy: reader.ifBusy) { tag, driver in
                try TagWriting.write(order, to: tag, with: driver, reader: device)
            }
        } catch let refusal as TagJobRefusal {
            throw DaemonTagJob.failure(refusal)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .runtime("\(error)")
        }
        print(report.summary)
    }
}
