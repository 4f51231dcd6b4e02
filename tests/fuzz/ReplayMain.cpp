// Replays files through a fuzz target's `LLVMFuzzerTestOneInput` without libFuzzer: what ctest runs over the
// seed corpus and the regression inputs (every crash the fuzzer found), in every build, sanitizers included.
//
//     bdt_fuzz_<target>_replay PATH...    (files, or folders read recursively)
//
// Prints how many inputs it ran; exits 1 if a path cannot be read or there is no input at all. A crash or a
// broken invariant aborts, as under the fuzzer.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* inData, std::size_t inSize);

namespace
{

bool RunFile(const std::filesystem::path& inPath)
{
    std::ifstream file(inPath, std::ios::binary);
    if (!file)
    {
        std::fprintf(stderr, "error: %s: cannot read\n", inPath.string().c_str());
        return false;
    }
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay %s (%zu bytes)\n", inPath.string().c_str(), bytes.size());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    return true;
}

} // namespace

int main(int inArgc, char** inArgv)
{
    std::size_t inputs = 0;
    for (int i = 1; i < inArgc; ++i)
    {
        const std::filesystem::path path(inArgv[i]);
        std::error_code error;
        if (std::filesystem::is_directory(path, error))
        {
            std::vector<std::filesystem::path> files;
            for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error))
                if (entry.is_regular_file())
                    files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (const auto& file : files)
            {
                if (!RunFile(file))
                    return 1;
                ++inputs;
            }
        }
        else if (!RunFile(path))
            return 1;
        else
            ++inputs;
    }
    std::printf("replayed %zu inputs without a crash\n", inputs);
    return inputs > 0 ? 0 : 1;
}
