// bdt-bench: one subcommand per registered scenario (see Scenario.h).
#include "Scenario.h"

#include <bdt/core/base/Error.h>

#include <iostream>

int main(int argc, char** argv)
{
    CLI::App app{"bdt-bench: BD-Tree benchmarks, compared side by side in one run"};
    app.require_subcommand(1);
    std::vector<std::pair<CLI::App*, bdt::bench::ScenarioRun>> commands;
    for (const auto& scenario : bdt::bench::Scenarios())
    {
        CLI::App* command = app.add_subcommand(scenario.name, scenario.description);
        commands.emplace_back(command, scenario.setup(*command));
    }
    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& error)
    {
        return app.exit(error);
    }
    try
    {
        for (auto& [command, run] : commands)
            if (command->parsed())
                return run();
    }
    catch (const bdt::Error& error)
    {
        std::cerr << "error: bdt-bench: " << error.what() << '\n';
        return 1;
    }
    return 1;
}
