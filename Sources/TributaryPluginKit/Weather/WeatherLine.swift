import TributaryCore

/// The `weather` line on a terminal, which both weather source types register
/// (`SourceDescriptor.lines`) for the items of kind `weather`, whichever source made them.
package enum WeatherLine {
    package static let registration = ItemLine(kind: "weather", render: line)

    /// `weather  2026-11-29 10:00  Belo Horizonte: 19.8 °C, light rain, humidity 88%, wind 3.6 m/s NW,
    /// sunrise 05:13, sunset 18:27`: the title (place, temperature, condition) and, from `data`, only
    /// the parts present. Times are the place's wall clock when `data.timezone` (UTC offset in
    /// seconds) is known, else this machine's; decimals follow `data.lang` (a comma for pt_br, de...).
    package static func line(_ item: Item) -> String {
        let data = item.data
        let offset = data["timezone"]?.numberValue?.int64.map { Int($0) }
        func time(_ t: Timestamp) -> String { offset.map { WeatherText.dateTime(t, offset: $0) } ?? ItemLine.localTime(t) }
        func clock(_ t: Timestamp) -> String { String(time(t).suffix(5)) }
        let separator = WeatherText.decimalSeparator(language: data["lang"]?.stringValue)
        var s = ItemLine.paddedKind(item.kind) + " " + time(item.published ?? item.fetched) + "  " + ItemLine.oneLine(item.title)
        if let humidity = data["humidity"]?.numberValue?.double {
            s += ", humidity " + WeatherText.number(humidity, decimals: 0) + "%"
        }
        if let speed = data["wind_speed"]?.numberValue?.double {
            let units = data["units"]?.stringValue.flatMap(WeatherUnits.init(rawValue:)) ?? .metric
            s += ", wind " + WeatherText.number(speed, separator: separator) + " " + units.windSpeedSymbol
            if let deg = data["wind_deg"]?.numberValue?.double { s += " " + WeatherText.compass(deg) }
        }
        for key in ["sunrise", "sunset"] {
            // RFC 3339 from the weather sources; unix seconds from a `json` source mapping the raw API.
            let t: Timestamp?
            switch data[key] {
            case .string(let text)?: t = Timestamp.parseRFC3339(text)
            case .number(let n)? where n.double > 0: t = Timestamp(checked: n.double)
            default: t = nil
            }
            if let t { s += ", \(key) " + clock(t) }
        }
        return s
    }

}
