#include "core/import/KinetoEventDecoder.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "core/import/MicrosToNs.h"

namespace chokepoint::core {

namespace {

using simdjson::error_code;
using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

// Raw key text (up to the closing quote) equals `literal`. Keys with escapes never match, which
// is right: none of the keys we read contain any.
template <std::size_t N>
bool keyIs(const char* raw, const char (&literal)[N]) {
    return std::memcmp(raw, literal, N - 1) == 0 && raw[N - 1] == '"';
}

// A number token as written (trailing whitespace trimmed by the converters).
error_code numberText(value& v, std::string_view& text, bool& isNumber) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    isNumber = type == json_type::number;
    if (!isNumber) {
        return simdjson::SUCCESS;
    }
    text = v.raw_json_token();
    return simdjson::SUCCESS;
}

// Counts a number token that did not parse: malformed syntax, or a value beyond `rangeName`.
void countBadNumber(KinetoModelBuilder& issues, NumberParse rc, const std::string& subject,
                    std::string_view text, const char* rangeName, const char* consequence) {
    const std::string shown = subject + " = " + std::string(text.substr(0, 40));
    if (rc == NumberParse::NotANumber) {
        issues.countIssue("import.malformed_number", Severity::Warning,
                          shown + " is not valid JSON number syntax; " + consequence);
    } else {
        issues.countIssue("import.value_out_of_range", Severity::Warning,
                          shown + " does not fit in " + rangeName + "; " + consequence);
    }
}

// Reads a microsecond timestamp/duration into ns. Strings and other types count as wrong types.
error_code readMicros(value& v, bool& has, std::int64_t& outNs, const char* field,
                      KinetoModelBuilder& issues) {
    std::string_view text;
    bool isNumber = false;
    if (auto err = numberText(v, text, isNumber)) {
        return err;
    }
    if (!isNumber) {
        issues.countIssue("import.wrong_type", Severity::Warning,
                          std::string("\"") + field + "\" is not a number; treated as missing");
        return simdjson::SUCCESS;
    }
    NumberParse rc = microsToNs(text, outNs);
    if (rc == NumberParse::Ok) {
        has = true;
    } else {
        countBadNumber(issues, rc, std::string("\"") + field + "\"", text, "int64 nanoseconds",
                       "treated as missing");
    }
    return simdjson::SUCCESS;
}

// Reads an integer that may be written as a number or a numeric string ("0x0" and other text is
// left unset). Wrong types are counted.
error_code readInt(value& v, OptInt& out, const char* field, KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    std::string_view text;
    if (type == json_type::number) {
        text = v.raw_json_token();
    } else if (type == json_type::string) {
        if (auto err = v.get_string().get(text)) {
            return err;
        }
        std::int64_t n = 0;
        if (parseInt64Token(text, n) == NumberParse::Ok) {
            out.set(n);
        }
        return simdjson::SUCCESS;
    } else if (type == json_type::null) {
        return simdjson::SUCCESS;
    } else {
        issues.countIssue("import.wrong_type", Severity::Warning,
                          std::string("arg \"") + field + "\" is not a number; ignored");
        return simdjson::SUCCESS;
    }
    std::int64_t n = 0;
    NumberParse rc = parseInt64Token(text, n);
    if (rc == NumberParse::Ok) {
        out.set(n);
    } else {
        countBadNumber(issues, rc, std::string("arg \"") + field + "\"", text, "int64", "ignored");
    }
    return simdjson::SUCCESS;
}

// Reads an unsigned 64-bit integer ("Comms Id", a hash that may use all 64 bits), written as a
// number or a numeric string. Anything else is counted and left unset.
error_code readUint64(value& v, bool& has, std::uint64_t& out, const char* field,
                      KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    std::string_view text;
    if (type == json_type::number) {
        text = v.raw_json_token();
    } else if (type == json_type::string) {
        if (auto err = v.get_string().get(text)) {
            return err;
        }
    } else {
        if (type != json_type::null) {
            issues.countIssue("import.wrong_type", Severity::Warning,
                              std::string("arg \"") + field + "\" is not a number; ignored");
        }
        return simdjson::SUCCESS;
    }
    while (!text.empty() &&
           (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        issues.countIssue("import.value_out_of_range", Severity::Warning,
                          std::string("arg \"") + field + "\" = " + std::string(text.substr(0, 40)) +
                              " is not an unsigned 64-bit integer; ignored");
        return simdjson::SUCCESS;
    }
    has = true;
    out = n;
    return simdjson::SUCCESS;
}

error_code readIdValue(value& v, KinetoId& id, const char* field, KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type == json_type::string) {
        id.present = true;
        id.isText = true;
        return v.get_string().get(id.text);
    }
    OptInt n;
    if (auto err = readInt(v, n, field, issues)) {
        return err;
    }
    if (n.present) {
        id.present = true;
        id.number = n.value;
    }
    return simdjson::SUCCESS;
}

error_code readString(value& v, std::string_view& out, const char* field, KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type == json_type::string) {
        return v.get_string().get(out);
    }
    if (type == json_type::number) {
        // Some writers emit numeric names; keep the text.
        out = v.raw_json_token();
        return simdjson::SUCCESS;
    }
    if (type != json_type::null) {
        issues.countIssue("import.wrong_type", Severity::Warning,
                          std::string("\"") + field + "\" is not a string; ignored");
    }
    return simdjson::SUCCESS;
}

error_code readDim3(value& v, std::array<std::int32_t, 3>& out, bool& has, const char* field,
                    KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type != json_type::array) {
        issues.countIssue("import.wrong_type", Severity::Warning,
                          std::string("arg \"") + field + "\" is not an array; ignored");
        return simdjson::SUCCESS;
    }
    simdjson::ondemand::array array;
    if (auto err = v.get_array().get(array)) {
        return err;
    }
    std::size_t i = 0;
    for (auto element : array) {
        value item;
        if (auto err = element.get(item)) {
            return err;
        }
        OptInt n;
        if (auto err = readInt(item, n, field, issues)) {
            return err;
        }
        if (i < 3 && n.present) {
            out[i] = static_cast<std::int32_t>(std::clamp<std::int64_t>(n.value, 0, INT32_MAX));
        }
        ++i;
    }
    has = true;
    return simdjson::SUCCESS;
}

// Raw JSON of an array value ("Input Dims"), trimmed.
error_code readRawArray(value& v, std::string_view& out) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type != json_type::array) {
        return simdjson::SUCCESS;  // skipped by the caller's iteration
    }
    simdjson::ondemand::array array;
    if (auto err = v.get_array().get(array)) {
        return err;
    }
    if (auto err = array.raw_json().get(out)) {
        return err;
    }
    while (!out.empty() &&
           (out.back() == ' ' || out.back() == '\n' || out.back() == '\r' || out.back() == '\t')) {
        out.remove_suffix(1);
    }
    return simdjson::SUCCESS;
}

error_code readStringOrArray(value& v, std::string_view& out, const char* field, KinetoModelBuilder& issues);

error_code decodeArgs(value& v, KinetoEvent& e, KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type != json_type::object) {
        issues.countIssue("import.wrong_type", Severity::Warning, "\"args\" is not an object; ignored");
        return simdjson::SUCCESS;
    }
    simdjson::ondemand::object args;
    if (auto err = v.get_object().get(args)) {
        return err;
    }
    const bool counter = e.phase == "C";
    for (auto fieldResult : args) {
        if (auto err = fieldResult.error()) {
            return err;
        }
        simdjson::ondemand::field field = std::move(fieldResult).value_unsafe();
        const char* k = field.key().raw();
        value& fv = field.value();
        error_code err = simdjson::SUCCESS;
        if (counter) {
            std::string_view key;
            if ((err = field.unescaped_key().get(key))) {
                return err;
            }
            json_type t;
            if ((err = fv.type().get(t))) {
                return err;
            }
            if (t == json_type::number) {
                double d = 0;
                if ((err = fv.get_double().get(d))) {
                    issues.countIssue("import.value_out_of_range", Severity::Warning,
                                      "counter value out of range; ignored");
                    continue;
                }
                // The key's unescaped text lives in the parser's string buffer until the next event.
                e.counterValues.emplace_back(key, d);
            }
            continue;
        }
        switch (k[0]) {
            case 'B':
                if (keyIs(k, "Bytes")) {
                    err = readInt(fv, e.memoryBytes, "Bytes", issues);
                }
                break;
            case 'T':
                if (keyIs(k, "Total Allocated")) {
                    err = readInt(fv, e.totalAllocated, "Total Allocated", issues);
                } else if (keyIs(k, "Total Reserved")) {
                    err = readInt(fv, e.totalReserved, "Total Reserved", issues);
                }
                break;
            case 'D':
                if (keyIs(k, "Device Type")) {
                    err = readInt(fv, e.memoryDeviceType, "Device Type", issues);
                } else if (keyIs(k, "Device Id")) {
                    err = readInt(fv, e.memoryDeviceId, "Device Id", issues);
                }
                break;
            case 'b':
                if (keyIs(k, "bytes")) {
                    err = readInt(fv, e.bytes, "bytes", issues);
                } else if (keyIs(k, "block")) {
                    err = readDim3(fv, e.block, e.hasBlock, "block", issues);
                }
                break;
            case 'c':
                if (keyIs(k, "correlation")) {
                    err = readInt(fv, e.correlation, "correlation", issues);
                }
                break;
            case 'C':
                if (keyIs(k, "Collective name")) {
                    err = readString(fv, e.collectiveName, "Collective name", issues);
                } else if (keyIs(k, "Comms Id")) {
                    err = readUint64(fv, e.hasCommsId, e.commsId, "Comms Id", issues);
                } else if (keyIs(k, "Concrete Inputs")) {
                    err = readRawArray(fv, e.concreteInputs);
                }
                break;
            case 'd':
                if (keyIs(k, "device")) {
                    err = readInt(fv, e.device, "device", issues);
                } else if (keyIs(k, "dtype")) {
                    err = readString(fv, e.dtype, "dtype", issues);
                }
                break;
            case 'G':
                if (keyIs(k, "Group size")) {
                    err = readInt(fv, e.groupSize, "Group size", issues);
                }
                break;
            case 'O':
                if (keyIs(k, "Out msg nelems")) {
                    err = readInt(fv, e.outNelems, "Out msg nelems", issues);
                }
                break;
            case 'P':
                if (keyIs(k, "Process Group Name")) {
                    err = readString(fv, e.processGroupName, "Process Group Name", issues);
                } else if (keyIs(k, "Process Group Description")) {
                    err = readString(fv, e.processGroupDescription, "Process Group Description", issues);
                } else if (keyIs(k, "Process Group Ranks")) {
                    err = readStringOrArray(fv, e.processGroupRanks, "Process Group Ranks", issues);
                }
                break;
            case 'E':
            case 'e':
                if (keyIs(k, "External id") || keyIs(k, "external id")) {
                    err = readInt(fv, e.externalId, "External id", issues);
                }
                break;
            case 'g':
                if (keyIs(k, "grid")) {
                    err = readDim3(fv, e.grid, e.hasGrid, "grid", issues);
                }
                break;
            case 'I':
                if (keyIs(k, "Input Dims") || keyIs(k, "Input dims")) {
                    err = readRawArray(fv, e.inputDims);
                } else if (keyIs(k, "Input type")) {
                    err = readRawArray(fv, e.inputTypes);
                } else if (keyIs(k, "In msg nelems")) {
                    err = readInt(fv, e.inNelems, "In msg nelems", issues);
                }
                break;
            case 'k':
                if (keyIs(k, "kind")) {
                    json_type t;
                    if ((err = fv.type().get(t)) == simdjson::SUCCESS && t == json_type::string) {
                        err = fv.get_string().get(e.memcpyKindArg);
                    }
                }
                break;
            case 'l':
                if (keyIs(k, "labels")) {
                    err = readString(fv, e.argLabels, "labels", issues);
                }
                break;
            case 'n':
                if (keyIs(k, "name")) {
                    err = readString(fv, e.argName, "args.name", issues);
                }
                break;
            case 'o':
                if (keyIs(k, "occupancy")) {
                    json_type t;
                    if ((err = fv.type().get(t)) == simdjson::SUCCESS) {
                        e.hasOccupancy = t == json_type::object;
                    }
                }
                break;
            case 'S':
                if (keyIs(k, "Seq")) {
                    err = readInt(fv, e.seq, "Seq", issues);
                }
                break;
            case 'r':
                if (keyIs(k, "registers per thread")) {
                    err = readInt(fv, e.registersPerThread, "registers per thread", issues);
                } else if (keyIs(k, "rank")) {
                    err = readInt(fv, e.rank, "rank", issues);
                }
                break;
            case 's':
                if (keyIs(k, "stream")) {
                    err = readInt(fv, e.stream, "stream", issues);
                } else if (keyIs(k, "shared memory")) {
                    err = readInt(fv, e.sharedMemoryBytes, "shared memory", issues);
                }
                break;
            default:
                break;
        }
        if (err) {
            return err;
        }
    }
    return simdjson::SUCCESS;
}

// "Process Group Ranks" is a string in current Kineto and may be an array in other writers.
error_code readStringOrArray(value& v, std::string_view& out, const char* field, KinetoModelBuilder& issues) {
    json_type type;
    if (auto err = v.type().get(type)) {
        return err;
    }
    if (type == json_type::array) {
        return readRawArray(v, out);
    }
    return readString(v, out, field, issues);
}

}  // namespace

error_code decodeKinetoEvent(simdjson::ondemand::object& object, KinetoEvent& e, KinetoModelBuilder& issues) {
    e.reset();
    for (auto fieldResult : object) {
        if (auto err = fieldResult.error()) {
            return err;
        }
        simdjson::ondemand::field field = std::move(fieldResult).value_unsafe();
        const char* k = field.key().raw();
        value& v = field.value();
        error_code err = simdjson::SUCCESS;
        switch (k[0]) {
            case 'p':
                if (keyIs(k, "ph")) {
                    err = readString(v, e.phase, "ph", issues);
                } else if (keyIs(k, "pid")) {
                    err = readIdValue(v, e.pid, "pid", issues);
                }
                break;
            case 'c':
                if (keyIs(k, "cat")) {
                    err = readString(v, e.category, "cat", issues);
                }
                break;
            case 'n':
                if (keyIs(k, "name")) {
                    err = readString(v, e.name, "name", issues);
                    e.hasName = true;
                }
                break;
            case 't':
                if (keyIs(k, "ts")) {
                    err = readMicros(v, e.hasTs, e.tsNs, "ts", issues);
                } else if (keyIs(k, "tid")) {
                    err = readIdValue(v, e.tid, "tid", issues);
                }
                break;
            case 'd':
                if (keyIs(k, "dur")) {
                    err = readMicros(v, e.hasDur, e.durNs, "dur", issues);
                }
                break;
            case 'i':
                if (keyIs(k, "id")) {
                    err = readInt(v, e.flowId, "id", issues);
                }
                break;
            case 'b':
                if (keyIs(k, "bp")) {
                    std::string_view bp;
                    err = readString(v, bp, "bp", issues);
                    e.bindsEnclosing = bp == "e";
                }
                break;
            case 'a':
                if (keyIs(k, "args")) {
                    err = decodeArgs(v, e, issues);
                }
                break;
            default:
                break;
        }
        if (err) {
            return err;
        }
    }
    return simdjson::SUCCESS;
}

}  // namespace chokepoint::core
