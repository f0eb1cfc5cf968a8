import FoundationEssentials
import NDEF
import OrderedJSON

/// Turns `encode`'s record options, in command-line order, into records:
/// `--lang` qualifies the `--text` before it, `--data`/`--data-file` the `--mime`
/// or `--external` before it.
enum EncodeRecords {
    static let uriOption = CommandOption("--uri", value: "URI", help: "a URI record (shortest identifier code)")
    static let textOption = CommandOption("--text", value: "TEXT", help: "a Text record in UTF-8")
    static let langOption = CommandOption("--lang", value: "LANG", help: "the language of the --text before it (default en)")
    static let mimeOption = CommandOption("--mime", value: "TYPE", help: "a media-type record, its payload the --data or --data-file after it")
    static let externalOption = CommandOption("--external", value: "TYPE", help: "an external-type record (domain:name), its payload the --data or\n--data-file after it")
    static let dataOption = CommandOption("--data", value: "STRING", help: "the payload of the --mime or --external before it")
    static let dataFileOption = CommandOption("--data-file", value: "PATH", help: "the payload of the --mime or --external before it, from a file")
    static let jsonOption = CommandOption("--json", value: "JSON", help: "an application/json record (checked to be JSON)")
    static let aarOption = CommandOption("--aar", value: "PACKAGE", help: "an Android Application Record")
    /// Every option that builds records (`encode`, `write`), taken in command-line order.
    static let options = [uriOption, textOption, langOption, mimeOption, externalOption, dataOption, dataFileOption, jsonOption, aarOption].map { $0.listed(under: group) }

    /// The heading `--help` lists the record options under.
    static let group = "Records (repeatable; the message holds them in command-line order)"

    static func build(_ steps: [(option: CommandOption, value: String)]) throws(CLIError) -> [NDEFRecord] {
        var records: [NDEFRecord] = []
        var index = 0
        func next(_ options: [CommandOption]) -> (option: CommandOption, value: String)? {
            guard index + 1 < steps.count, options.contains(steps[index + 1].option) else { return nil }
            index += 1
            return steps[index]
        }
        while index < steps.count {
            let (option, value) = steps[index]
            let name = option.names[0]
            switch option {
            case uriOption:
                records.append(.uri(value))
            case textOption:
                records.append(.text(value, locale: next([langOption])?.value ?? "en"))
            case jsonOption:
                guard (try? JSONValue.parse(value)) != nil else { throw .usage("--json needs a JSON document, got '\(value)'") }
                records.append(.json(value))
            case aarOption:
                records.append(.androidApp(value))
            case mimeOption, externalOption:
                guard let data = next([dataOption, dataFileOption]) else { throw .usage("\(name) \(value) needs --data or --data-file after it") }
                let payload = try payload(data)
                records.append(option == mimeOption ? .mime(value, payload) : .external(value, payload))
            default:
                throw .usage("\(name) must follow \(option == langOption ? "--text" : "--mime or --external")")
            }
            index += 1
        }
        guard !records.isEmpty else { throw .usage("give at least one record (--uri, --text, --mime, --json, --external, --aar)") }
        return records
    }

    private static func payload(_ data: (option: CommandOption, value: String)) throws(CLIError) -> [UInt8] {
        guard data.option == dataFileOption else { return Array(data.value.utf8) }
        guard let contents = FileManager.default.contents(atPath: data.value) else {
            throw .runtime("cannot read '\(data.value)'")
        }
        return [UInt8](contents)
    }
}
