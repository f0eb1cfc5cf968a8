@testable import ReaderKeyboard

/// Recorded evdev streams as keyboard-wedge readers send them: for each key a
/// `MSC_SCAN`, the key down, a `SYN_REPORT`, then the key up and another
/// `SYN_REPORT`, one key every `gap` (the reader's USB polling interval).
enum KeyboardStreams {
    /// Linux key codes for what these tests type.
    static let codes: [Character: UInt16] = [
        "1": 2, "2": 3, "3": 4, "4": 5, "5": 6, "6": 7, "7": 8, "8": 9, "9": 10, "0": 11,
        "a": 30, "b": 48, "c": 46, "d": 32, "e": 18, "f": 33, "q": 16, "x": 45, "\n": 28, "\t": 15,
    ]
    static let leftShift: UInt16 = 42

    /// The events of typing `text` (upper-case letters with Shift) from `start`, a key every `gap`.
    static func typing(_ text: String, start: Duration = .seconds(1_700_000_000), gap: Duration = .milliseconds(8)) -> [InputEvent] {
        var events: [InputEvent] = []
        var time = start
        func key(_ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: InputEvent.miscellaneous, code: 4, value: Int32(code)))
            events.append(InputEvent(time: time, type: InputEvent.key, code: code, value: value))
            events.append(InputEvent(time: time, type: InputEvent.synchronization, code: 0, value: 0))
        }
        for character in text {
            let shifted = character.isUppercase
            guard let code = codes[Character(character.lowercased())] else { preconditionFailure("no key code for \(character)") }
            if shifted { key(leftShift, InputEvent.pressed) }
            key(code, InputEvent.pressed)
            time += gap / 2
            key(code, InputEvent.released)
            if shifted { key(leftShift, InputEvent.released) }
            time += gap / 2
        }
        return events
    }

    /// The records of `events` as one byte stream, as read from the device.
    static func bytes(_ events: [InputEvent]) -> [UInt8] { events.flatMap(\.record) }
}
