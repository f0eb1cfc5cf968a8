import TagCore

/// How `tagrouter demo` says what happened at the reader, in words instead of
/// event JSON: `▶ placed an NTAG215 (04a224b2c35e80) with https://example.com/a`.
enum DemoEventText {
    /// One line for `event`, led by a symbol for its kind.
    static func line(_ event: TagEvent) -> String {
        switch event.kind {
        case .tagArrived:
            return "▶ placed \(tagPhrase(event, article: true)) \(contents(event))"
        case .tagRemoved:
            let dwell = event.dwellMs.map { " after " + seconds($0) } ?? ""
            return "◀ lifted \(tagPhrase(event, article: false))\(dwell)"
        case .tagHeld:
            return "■ held \(tagPhrase(event, article: false))"
        case .tagTapped:
            return "▷ tapped \(tagPhrase(event, article: false))"
        case .readerConnected:
            return "● reader '\(event.reader)' connected"
        case .readerDisconnected:
            return "● reader '\(event.reader)' disconnected" + (event.message.map { ": \($0)" } ?? "")
        case .readerError:
            return "✗ reader '\(event.reader)': " + (event.message ?? "error")
        case .readerWaiting:
            return "… reader '\(event.reader)' waiting: " + (event.message ?? "for its device")
        }
    }

    /// `an NTAG215 (04a224b2c35e80)`, or with `article: false` `the NTAG215 04a224b2c35e80`.
    private static func tagPhrase(_ event: TagEvent, article: Bool) -> String {
        guard let tag = event.tag else { return article ? "a tag" : "the tag" }
        let (name, indefinite) = productName(tag.type)
        let known = tag.name.map { " “\($0)”" } ?? ""
        return article ? "\(indefinite) \(name)\(known) (\(tag.uid.hex))" : "the \(name)\(known) \(tag.uid.hex)"
    }

    /// What the tag carries: its link, its text, or why there is no message.
    private static func contents(_ event: TagEvent) -> String {
        switch (event.uri, event.text) {
        case (let uri?, let text?): return "with \(uri) and the text “\(text)”"
        case (let uri?, nil): return "with \(uri)"
        case (nil, let text?): return "with the text “\(text)”"
        case (nil, nil) where event.ndef == nil:
            return "with no NDEF message" + (event.ndefError.map { " (\($0))" } ?? "")
        case (nil, nil): return "with records but no link or text"
        }
    }

    /// The product as people write it, and the article it takes: `("NTAG215", "an")`.
    private static func productName(_ type: String) -> (String, String) {
        switch type {
        case let ntag where ntag.hasPrefix("ntag"): return (ntag.uppercased(), "an")
        case "mifare-ultralight": return ("MIFARE Ultralight", "a")
        case "mifare-ultralight-ev1": return ("MIFARE Ultralight EV1", "a")
        case "mifare-classic-1k": return ("MIFARE Classic 1K", "a")
        case "mifare-classic-4k": return ("MIFARE Classic 4K", "a")
        case "mifare-mini": return ("MIFARE Mini", "a")
        case "type1": return ("Topaz (Type 1) tag", "a")
        case "type3": return ("FeliCa (Type 3) tag", "a")
        case "type4": return ("Type 4 tag", "a")
        default: return ("\(type) tag", "a")
        }
    }

    /// `2.5 s` for 2500 ms.
    private static func seconds(_ milliseconds: Int) -> String {
        "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}
