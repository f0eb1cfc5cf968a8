import FoundationEssentials
import NDEF
import OrderedJSON

/// Turns `encode`'s record options, in command-line order, into records:
/// `--lang` qualifies the `--text` before it, `--data`/`--data-file` the `--mime`
/// or `--external` before it.
enum EncodeRecords {
    static let uriOption = record("--uri", "URI", help: "a URI record (shortest identifier code)")
    static let textOption = record("--text", "TEXT", help: "a Text record in UTF-8")
    /// The language of a Text record without `--lang`.
    static let defaultLanguage = "en"
    static let langOption = record("--lang", "LANG", whenAbsent: defaultLanguage, help: "the language of the --text before it")
    static let mimeOption = record("--mime", "TYPE", help: "a media-type record, its payload the --data or --data-file after it")
    static let externalOption = record("--external", "TYPE", help: "an external-type record (domain:name), its payload the --data or\n--data-file after it")
    static let dataOption = record("--data", "STRING", help: "the payload of the --mime or --external before it")
    static let dataFileOption = record("--data-file", "PATH", help: "the payload of the --mime or --external before it, from a file")
    static let jsonOption = record("--json", "JSON", help: "an application/json record (checked to be JSON)")
    static let aarOption = record("--aar", "PACKAGE", help: "an Android Application Record")
    /// Every option that builds records (`encode`, `write`), taken in command-line order.
    static let options: [any DeclaredOption] = [uriOption, textOption, langOption, mimeOption, externalOption, dataOption, dataFileOption, jsonOption, aarOption]
    /// The same, as `Arguments.orderedValues(of:)` takes them.
    static var declarations: [CommandOption] { options.map(\.declaration) }

    /// What RECORD stands for on the usage lines of `encode` and `write`, one form a line: `  --text TEXT [--lang LANG]`.
    static var grammar: String {
        let payload = Synopsis.Part.either([.option(dataOption)], [.option(dataFileOption)])
        let forms: [[Synopsis.Part]] = [
            [.option(uriOption)], [.option(textOption), .optional(langOption)], [.option(mimeOption), payload], [.option(jsonOption)],
            [.option(externalOption), payload], [.option(aarOption)],
        ]
        return forms.map { "  " + $0.map(\.text).joined(separator: " ") }.joined(separator: "\n")
    }

    /// A record option: text, listed under `group`. Each may come any number of times: `build` takes them
    /// all in command-line order (`Arguments.orderedValues`), never one by one.
    private static func record(_ name: String, _ placeholder: String, whenAbsent: String? = nil, help: String) -> ValueOption<String?> {
        ValueOption(name, placeholder: placeholder, whenAbsent: whenAbsent, help: help, group: group)
    }

    /// The heading `--help` lists the record options under.
    static let group = "Records (repeatable; the message holds them in command-line order)"

    static func build(_ steps: [(option: CommandOption, value: String)]) throws(CLIError) -> [NDEFRecord] {
        var records: [NDEFRecord] = []
        var index = 0
        func next(_ options: [ValueOption<String?>]) -> (option: CommandOption, value: String)? {
            guard index + 1 < steps.count, options.contains(where: { $0.declaration == steps[index + 1].option }) else { return nil }
            index += 1
            return steps[index]
        }
        while index < steps.count {
            let (option, value) = steps[index]
            let name = option.names[0]
            switch option {
            case uriOption.declaration:
                records.append(.uri(value))
            case textOption.declaration:
                records.append(.text(value, locale: next([langOption])?.value ?? defaultLanguage))
            case jsonOption.declaration:
                guard (try? JSONValue.parse(value)) != nil else { throw .usage("--json needs a JSON document, got '\(value)'") }
                records.append(.json(value))
            case aarOption.declaration:
                records.append(.androidApp(value))
            case mimeOption.declaration, externalOption.declaration:
                guard let data = next([dataOption, dataFileOption]) else { throw .usage("\(name) \(value) needs --data or --data-file after it") }
                let payload = try payload(data)
                records.append(option == mimeOption.declaration ? .mime(value, payload) : .external(value, payload))
            default:
                throw .usage("\(name) must follow \(option == langOption.declaration ? "--text" : "--mime or --external")")
            }
            index += 1
        }
        guard !records.isEmpty else { throw .usage("give at least one record (--uri, --text, --mime, --json, --external, --aar)") }
        return records
    }

    private static func payload(_ data: (option: CommandOption, value: String)) throws(CLIError) -> [UInt8] {
        guard data.option == dataFileOption.declaration else { return Array(data.value.utf8) }
        guard let contents = FileManager.default.contents(atPath: data.value) else {
            throw .runtime("cannot read '\(data.value)'")
        }
        return [UInt8](contents)
    }
}
