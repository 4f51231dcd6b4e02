#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace bdt::bench
{

/// Runs a scenario after its options are parsed; returns the process exit code.
using ScenarioRun = std::function<int()>;
/// Adds a scenario's options to its subcommand and returns the function that runs it.
using ScenarioSetup = std::function<ScenarioRun(CLI::App& ioCommand)>;

struct Scenario
{
    std::string name;
    std::string description;
    ScenarioSetup setup;
};

/// Adds the option `inName` (help `inHelp`) bound to `ioValue`, whose value (each value, for a list) must lie in
/// [inLow, inHigh]; CLI11 refuses others with a one-line error naming the option.
template <class Value, class Bound>
CLI::Option* AddRangeOption(CLI::App& ioCommand, const std::string& inName, Value& ioValue, const std::string& inHelp,
                            Bound inLow, Bound inHigh)
{
    return ioCommand.add_option(inName, ioValue, inHelp)->check(CLI::Range(inLow, inHigh));
}

/// Adds `--json`: where the scenario writes its report (`WriteReport`).
inline CLI::Option* AddJsonOption(CLI::App& ioCommand, std::string& ioPath)
{
    return ioCommand.add_option("--json", ioPath, "Write the report to this JSON file");
}

/// Registers a scenario at static-initialisation time: `static const bool s = RegisterScenario(...)`.
bool RegisterScenario(std::string inName, std::string inDescription, ScenarioSetup inSetup);
/// Every registered scenario, sorted by name.
std::vector<Scenario>& Scenarios();

/// Facts recorded in every report: compiler, flags, CPU model, cores, date (UTC, ISO 8601).
nlohmann::json MachineFacts();

/// Median of `inValues` (copied, sorted).
double Median(std::vector<double> inValues);
/// Arithmetic mean of `inValues` (0 when empty).
double Mean(const std::vector<double>& inValues);
/// Percentile in [0, 100] (nearest rank).
double Percentile(std::vector<double> inValues, double inPercent);

/// Writes `inReport` (with machine facts added under "machine") to `inPath`; returns false and prints an
/// `error:` line if the file cannot be written.
bool WriteReport(nlohmann::json inReport, const std::string& inPath);
/// Writes a whitespace table for gnuplot to `inPath`: `inHeader` as a `#` comment line, then one line per row,
/// each value with up to 9 significant digits. Returns false and prints an `error:` line naming the file if it
/// cannot be written.
bool WriteTable(const std::string& inPath, const std::string& inHeader,
                const std::vector<std::vector<double>>& inRows);

} // namespace bdt::bench
