#include "Scenario.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>

namespace bdt::bench
{

std::vector<Scenario>& Scenarios()
{
    static std::vector<Scenario> sScenarios;
    return sScenarios;
}

bool RegisterScenario(std::string inName, std::string inDescription, ScenarioSetup inSetup)
{
    auto& scenarios = Scenarios();
    scenarios.push_back({std::move(inName), std::move(inDescription), std::move(inSetup)});
    std::sort(scenarios.begin(), scenarios.end(), [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
    return true;
}

namespace
{

std::string CpuModel()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
    {
        if (line.rfind("model name", 0) == 0)
        {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

std::string UtcNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

} // namespace

nlohmann::json MachineFacts()
{
    return {{"compiler", BDT_BENCH_COMPILER},
            {"flags", BDT_BENCH_FLAGS},
            {"cpu", CpuModel()},
            {"hardware_threads", std::thread::hardware_concurrency()},
            {"date", UtcNow()}};
}

double Median(std::vector<double> inValues) { return Percentile(std::move(inValues), 50.0); }

double Mean(const std::vector<double>& inValues)
{
    double sum = 0.0;
    for (double value : inValues)
        sum += value;
    return inValues.empty() ? 0.0 : sum / double(inValues.size());
}

double Percentile(std::vector<double> inValues, double inPercent)
{
    if (inValues.empty())
        return 0.0;
    std::sort(inValues.begin(), inValues.end());
    const double rank = inPercent / 100.0 * double(inValues.size() - 1);
    return inValues[static_cast<std::size_t>(rank + 0.5)];
}

bool WriteReport(nlohmann::json inReport, const std::string& inPath)
{
    inReport["machine"] = MachineFacts();
    std::ofstream file(inPath);
    if (!file || !(file << inReport.dump(2) << '\n'))
    {
        std::cerr << "error: " << inPath << ": cannot write the report\n";
        return false;
    }
    std::cerr << "wrote " << inPath << '\n';
    return true;
}

bool WriteTable(const std::string& inPath, const std::string& inHeader,
                const std::vector<std::vector<double>>& inRows)
{
    std::ofstream file(inPath);
    file << "# " << inHeader << '\n';
    file.precision(9);
    for (const std::vector<double>& row : inRows)
    {
        for (std::size_t i = 0; i < row.size(); ++i)
            file << (i == 0 ? "" : " ") << row[i];
        file << '\n';
    }
    if (!file)
    {
        std::cerr << "error: " << inPath << ": cannot write the table\n";
        return false;
    }
    return true;
}

} // namespace bdt::bench
