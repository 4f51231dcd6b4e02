// check_spheres: an independent oracle for the tools test, using nothing from the library.
//
//     check_spheres check SPHERES.csv DEFORMED.obj REST.obj [LEVEL]
//         Verifies that every vertex of every node's triangle range (OBJ faces, tree order) lies inside that
//         node's sphere, up to 1e-6 of the model size (half the diagonal of REST.obj's bounding box). Without
//         LEVEL the CSV must list every node 0..K-1 with node 0 covering every face; with LEVEL, only nodes
//         of that level. Prints how many vertex-in-sphere checks it made; exits 1 with a message on failure.
//     check_spheres random-q REST.obj M SEED FRACTION
//         Prints M comma-separated q values uniform in ±FRACTION × model size (deterministic for SEED).
//     check_spheres truncate IN OUT BYTES       Writes the first BYTES bytes of IN to OUT.
//     check_spheres flip IN OUT OFFSET          Copies IN to OUT with the byte at OFFSET inverted.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

constexpr double cRelativeTolerance = 1e-6;

struct Mesh
{
    std::vector<std::array<double, 3>> vertices;
    std::vector<std::array<std::uint32_t, 3>> faces;
};

struct NodeSphere
{
    std::uint32_t node = 0;
    std::uint32_t level = 0;
    double center[3] = {0, 0, 0};
    double radius = 0;
    std::uint32_t firstTriangle = 0;
    std::uint32_t triangleCount = 0;
};

[[noreturn]] void Fail(const std::string& inMessage)
{
    throw std::runtime_error(inMessage);
}

/// Reads the `v` and `f` lines of an OBJ with plain 1-based triangle faces.
Mesh ReadObj(const std::string& inPath)
{
    std::ifstream file(inPath);
    if (!file)
        Fail("cannot open " + inPath);
    Mesh mesh;
    std::string line;
    for (std::size_t number = 1; std::getline(file, line); ++number)
    {
        std::istringstream fields(line);
        std::string tag;
        fields >> tag;
        if (tag == "v")
        {
            std::array<double, 3> v{};
            if (!(fields >> v[0] >> v[1] >> v[2]))
                Fail(inPath + ":" + std::to_string(number) + ": bad vertex");
            mesh.vertices.push_back(v);
        }
        else if (tag == "f")
        {
            std::array<long long, 3> f{};
            std::string extra;
            if (!(fields >> f[0] >> f[1] >> f[2]) || (fields >> extra))
                Fail(inPath + ":" + std::to_string(number) + ": not a plain triangle face");
            std::array<std::uint32_t, 3> face{};
            for (int k = 0; k < 3; ++k)
            {
                if (f[k] < 1 || f[k] > static_cast<long long>(mesh.vertices.size()))
                    Fail(inPath + ":" + std::to_string(number) + ": face index out of range");
                face[k] = static_cast<std::uint32_t>(f[k] - 1);
            }
            mesh.faces.push_back(face);
        }
    }
    if (mesh.vertices.empty() || mesh.faces.empty())
        Fail(inPath + ": no vertices or no faces");
    return mesh;
}

/// Half the diagonal of the bounding box of the mesh's vertices.
double ModelSize(const Mesh& inMesh)
{
    std::array<double, 3> lo{}, hi{};
    lo.fill(std::numeric_limits<double>::infinity());
    hi.fill(-std::numeric_limits<double>::infinity());
    for (const auto& v : inMesh.vertices)
        for (int k = 0; k < 3; ++k)
        {
            lo[k] = std::min(lo[k], v[k]);
            hi[k] = std::max(hi[k], v[k]);
        }
    const double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return 0.5 * std::sqrt(dx * dx + dy * dy + dz * dz);
}

std::vector<NodeSphere> ReadCsv(const std::string& inPath)
{
    std::ifstream file(inPath);
    if (!file)
        Fail("cannot open " + inPath);
    std::string line;
    if (!std::getline(file, line) || line != "node,level,cx,cy,cz,r,first_triangle,triangle_count")
        Fail(inPath + ": unexpected CSV header '" + line + "'");
    std::vector<NodeSphere> spheres;
    for (std::size_t number = 2; std::getline(file, line); ++number)
    {
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream fields(line);
        NodeSphere s;
        std::string extra;
        if (!(fields >> s.node >> s.level >> s.center[0] >> s.center[1] >> s.center[2] >> s.radius >>
              s.firstTriangle >> s.triangleCount) ||
            (fields >> extra))
            Fail(inPath + ":" + std::to_string(number) + ": malformed row");
        if (!std::isfinite(s.center[0]) || !std::isfinite(s.center[1]) || !std::isfinite(s.center[2]) ||
            !std::isfinite(s.radius) || s.radius < 0)
            Fail(inPath + ":" + std::to_string(number) + ": non-finite or negative sphere");
        spheres.push_back(s);
    }
    if (spheres.empty())
        Fail(inPath + ": no spheres");
    return spheres;
}

/// Structural checks of the node list against the mesh.
void CheckCoverage(const std::vector<NodeSphere>& inSpheres, const Mesh& inMesh, long long inLevel)
{
    for (std::size_t k = 0; k < inSpheres.size(); ++k)
    {
        const NodeSphere& s = inSpheres[k];
        if (inLevel < 0 && s.node != k)
            Fail("node ids are not 0.." + std::to_string(inSpheres.size() - 1));
        if (inLevel >= 0 && s.level != static_cast<std::uint32_t>(inLevel))
            Fail("node " + std::to_string(s.node) + " is not of level " + std::to_string(inLevel));
        if (k > 0 && s.node <= inSpheres[k - 1].node)
            Fail("node ids are not increasing");
        if (s.triangleCount == 0 || std::uint64_t(s.firstTriangle) + s.triangleCount > inMesh.faces.size())
            Fail("node " + std::to_string(s.node) + " has a triangle range outside the mesh");
    }
    if (inLevel < 0 && (inSpheres[0].firstTriangle != 0 || inSpheres[0].triangleCount != inMesh.faces.size()))
        Fail("the root does not cover every face");
}

int Check(const std::string& inCsv, const std::string& inObj, const std::string& inRest, long long inLevel)
{
    const std::vector<NodeSphere> spheres = ReadCsv(inCsv);
    const Mesh mesh = ReadObj(inObj);
    const Mesh rest = ReadObj(inRest);
    if (rest.vertices.size() != mesh.vertices.size() || rest.faces != mesh.faces)
        Fail("the rest and deformed meshes differ in topology");
    CheckCoverage(spheres, mesh, inLevel);
    const double size = ModelSize(rest);
    const double tolerance = cRelativeTolerance * size;

    std::vector<std::size_t> stamp(mesh.vertices.size(), std::numeric_limits<std::size_t>::max());
    std::uint64_t checks = 0;
    double worstExcess = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < spheres.size(); ++k)
    {
        const NodeSphere& s = spheres[k];
        for (std::uint32_t f = s.firstTriangle; f < s.firstTriangle + s.triangleCount; ++f)
            for (std::uint32_t v : mesh.faces[f])
            {
                if (stamp[v] == k)
                    continue;
                stamp[v] = k;
                const auto& p = mesh.vertices[v];
                const double dx = p[0] - s.center[0], dy = p[1] - s.center[1], dz = p[2] - s.center[2];
                const double excess = std::sqrt(dx * dx + dy * dy + dz * dz) - s.radius;
                worstExcess = std::max(worstExcess, excess);
                ++checks;
                if (excess > tolerance)
                {
                    char amount[32];
                    std::snprintf(amount, sizeof(amount), "%.3g", excess / size);
                    Fail("vertex " + std::to_string(v + 1) + " is outside the sphere of node " +
                         std::to_string(s.node) + " by " + amount + " of the model size");
                }
            }
    }
    std::printf("check_spheres: OK: %llu vertex-in-sphere checks on %zu nodes (%zu vertices, %zu faces), "
                "tolerance %.1e of model size %.6g, worst excess %.3g of it\n",
                static_cast<unsigned long long>(checks), spheres.size(), mesh.vertices.size(),
                mesh.faces.size(), cRelativeTolerance, size, worstExcess / size);
    return 0;
}

int RandomQ(const std::string& inRest, int inModes, unsigned long long inSeed, double inFraction)
{
    const double amplitude = inFraction * ModelSize(ReadObj(inRest));
    std::mt19937_64 random(inSeed);
    std::uniform_real_distribution<double> uniform(-amplitude, amplitude);
    std::string text;
    for (int j = 0; j < inModes; ++j)
    {
        char value[32];
        std::snprintf(value, sizeof(value), "%.9g", static_cast<double>(static_cast<float>(uniform(random))));
        if (j > 0)
            text += ',';
        text += value;
    }
    std::printf("%s\n", text.c_str());
    return 0;
}

std::vector<char> ReadBytes(const std::string& inPath)
{
    std::ifstream file(inPath, std::ios::binary);
    if (!file)
        Fail("cannot open " + inPath);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void WriteBytes(const std::string& inPath, const std::vector<char>& inBytes, std::size_t inCount)
{
    std::ofstream file(inPath, std::ios::binary | std::ios::trunc);
    file.write(inBytes.data(), static_cast<std::streamsize>(inCount));
    if (!file)
        Fail("cannot write " + inPath);
}

int Run(const std::vector<std::string>& inArgs)
{
    const std::string command = inArgs.empty() ? "" : inArgs[0];
    if (command == "check" && (inArgs.size() == 4 || inArgs.size() == 5))
        return Check(inArgs[1], inArgs[2], inArgs[3], inArgs.size() == 5 ? std::stoll(inArgs[4]) : -1);
    if (command == "random-q" && inArgs.size() == 5)
        return RandomQ(inArgs[1], std::stoi(inArgs[2]), std::stoull(inArgs[3]), std::stod(inArgs[4]));
    if ((command == "truncate" || command == "flip") && inArgs.size() == 4)
    {
        std::vector<char> bytes = ReadBytes(inArgs[1]);
        const std::size_t n = std::stoull(inArgs[3]);
        if (n >= bytes.size() + (command == "truncate" ? 1 : 0))
            Fail(inArgs[3] + " is past the end of " + inArgs[1]);
        if (command == "flip")
            bytes[n] = static_cast<char>(~bytes[n]);
        WriteBytes(inArgs[2], bytes, command == "truncate" ? n : bytes.size());
        return 0;
    }
    Fail("usage: check_spheres check CSV OBJ REST [LEVEL] | random-q REST M SEED FRACTION | "
         "truncate IN OUT BYTES | flip IN OUT OFFSET");
}

} // namespace

int main(int argc, char** argv)
{
    try
    {
        return Run(std::vector<std::string>(argv + 1, argv + argc));
    }
    catch (const std::exception& error)
    {
        std::fprintf(stderr, "check_spheres: FAILED: %s\n", error.what());
        return 1;
    }
}
