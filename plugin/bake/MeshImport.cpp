#include "ChildProcess.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/core/base/Error.h>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace bdt
{

namespace
{

// Geometry gathered from the scene before welding: every triangle-mesh instance, transformed to the
// scene's root frame, in double.
struct RawMesh
{
    std::vector<Vec3d> positions;
    std::vector<Triangle> triangles;
};

// Assimp's error strings can span lines; the contract is one line without a trailing newline.
std::string OneLine(const std::string& inText)
{
    std::string line;
    bool space = false;
    for (const char c : inText)
    {
        if (std::isspace(static_cast<unsigned char>(c)))
        {
            space = !line.empty();
            continue;
        }
        if (space)
            line += ' ';
        space = false;
        line += c;
    }
    return line.empty() ? std::string("unknown error") : line;
}

// Replaces every occurrence of `inFind` in `ioText` by `inReplacement`.
void ReplaceAll(std::string& ioText, const std::string& inFind, const std::string& inReplacement)
{
    if (inFind.empty())
        return;
    for (std::size_t at = ioText.find(inFind); at != std::string::npos;
         at = ioText.find(inFind, at + inReplacement.size()))
        ioText.replace(at, inFind.size(), inReplacement);
}

// Assimp's message as one line without the file's path or name (the caller adds the file name).
std::string AssimpMessage(const std::string& inMessage, const std::string& inPath)
{
    if (inMessage.find("No suitable reader found") != std::string::npos)
        return "unrecognised or unsupported file format";
    std::string message = inMessage;
    ReplaceAll(message, "\"" + inPath + "\"", "the file");
    ReplaceAll(message, inPath, "the file");
    ReplaceAll(message, std::filesystem::path(inPath).filename().string(), "the file");
    return OneLine(message);
}

void CheckReadable(const std::string& inPath)
{
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(inPath, error);
    if (status.type() == std::filesystem::file_type::not_found)
        throw Error("no such file");
    if (error)
        throw Error("cannot read: " + OneLine(error.message()));
    if (status.type() == std::filesystem::file_type::directory)
        throw Error("is a directory, not a mesh file");
    if (status.type() != std::filesystem::file_type::regular)
        throw Error("not a regular file");
    if (std::filesystem::file_size(inPath, error) == 0 && !error)
        throw Error("empty file");
}

// The file's extension in lower case, with its dot (".off"); empty if none. Assimp picks its reader by it.
std::string LowerCaseExtension(const std::string& inPath)
{
    std::string extension = std::filesystem::path(inPath).extension().string();
    std::ranges::transform(extension, extension.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return extension;
}

// Assimp's OFF reader trusts the header's counts and allocates (and zero-fills) that many faces before
// reading any, so a corrupt header costs tens of gigabytes (assimp's invalid/OutOfMemory.off). Every
// vertex and face takes at least two bytes in ASCII and more in binary, so larger counts are rejected here.
void CheckOffHeader(const std::string& inPath)
{
    std::ifstream file(inPath, std::ios::binary);
    std::string token;
    while (file >> token && token[0] == '#')
        std::getline(file, token);
    const bool keyword = token.size() >= 3 && token.compare(token.size() - 3, 3, "OFF") == 0;
    if (!keyword && LowerCaseExtension(inPath) != ".off")
        return;
    if (keyword && (token.find('4') != std::string::npos || token.find('n') != std::string::npos))
        return; // Higher-dimensional variants carry an extra dimension field first.
    // The counts follow on the header line itself or on the next non-comment line ("OFF BINARY" aside). Assimp
    // also reads a .off file without the keyword, its first line then being the counts (found by the fuzzer).
    std::string line;
    std::getline(file, line);
    double vertices = 0.0, faces = 0.0;
    std::istringstream rest(keyword ? line : token + " " + line);
    if (!(rest >> vertices >> faces) && keyword)
    {
        while (file >> std::ws && file.peek() == '#')
            std::getline(file, line);
        if (!(file >> vertices >> faces))
            return; // Binary counts or a malformed header: Assimp reports it.
    }
    std::error_code error;
    const double bytes = double(std::filesystem::file_size(inPath, error));
    if (!error && (vertices > 0.5 * bytes || faces > 0.5 * bytes))
    {
        std::ostringstream message;
        message << std::fixed << std::setprecision(0) << "OFF header declares " << vertices
                << " vertices and " << faces << " faces, more than the file can hold";
        throw Error(message.str());
    }
}

// Size in bytes of a PLY scalar type, 0 if unknown.
std::size_t PlyTypeBytes(const std::string& inType)
{
    static const std::unordered_map<std::string, std::size_t> sizes = {
        {"char", 1},  {"uchar", 1},  {"int8", 1},   {"uint8", 1},   {"short", 2},   {"ushort", 2},
        {"int16", 2}, {"uint16", 2}, {"int", 4},    {"uint", 4},    {"int32", 4},   {"uint32", 4},
        {"float", 4}, {"float32", 4}, {"double", 8}, {"float64", 8}};
    const auto it = sizes.find(inType);
    return it == sizes.end() ? 0 : it->second;
}

// Assimp's PLY reader reads past the end of its buffer when the header has no end_header line or a binary
// body is shorter than the header's element counts (found by the mesh fuzzer: tests/fuzz/regressions/mesh).
// So a PLY file must have a well-formed header, and a binary one at least the bytes its elements need
// (fixed properties, and each list's count; the list items themselves are checked by Assimp).
void CheckPlyHeader(const std::string& inPath)
{
    std::ifstream file(inPath, std::ios::binary);
    std::string line;
    std::getline(file, line);
    if (line.rfind("ply", 0) != 0 && LowerCaseExtension(inPath) != ".ply")
        return; // Not a PLY file: another reader's business.
    // Assimp takes any file named .ply, or starting with "ply", to its PLY reader.
    if (line.rfind("ply", 0) != 0 || line.find_first_not_of(" \t\r", 3) != std::string::npos)
        throw Error("PLY file does not start with a 'ply' line");
    bool binary = false, ended = false;
    double bodyBytes = 0.0;          // the least the binary body takes
    double elementCount = 0.0;       // of the element being declared
    double elementBytes = 0.0;       // per item of that element
    bool inVertexElement = false;    // declaring the vertex element
    int axes = 0;                    // its x, y, z properties seen (bits)
    const auto closeElement = [&] { bodyBytes += elementCount * elementBytes; };
    for (int lineNumber = 2; std::getline(file, line); ++lineNumber)
    {
        if (lineNumber > 10000)
            throw Error("PLY header has more than 10000 lines");
        std::istringstream words(line);
        std::string keyword;
        words >> keyword;
        if (keyword == "end_header")
        {
            ended = true;
            break;
        }
        if (keyword == "format")
        {
            std::string format;
            words >> format;
            binary = format.rfind("binary", 0) == 0;
        }
        else if (keyword == "element")
        {
            closeElement();
            std::string name;
            elementCount = 0.0;
            elementBytes = 0.0;
            if (!(words >> name >> elementCount) || !(elementCount >= 0.0))
                throw Error("PLY header line " + std::to_string(lineNumber) + " declares an element without a count");
            if (inVertexElement && axes != 7)
                throw Error("PLY vertex element lacks an x, y or z property");
            inVertexElement = name == "vertex";
            axes = 0;
        }
        else if (keyword == "property")
        {
            std::string type, name;
            words >> type;
            if (type == "list")
                words >> type; // a list costs at least its count
            const std::size_t bytes = PlyTypeBytes(type);
            if (bytes == 0)
                throw Error("PLY header line " + std::to_string(lineNumber) + " has unknown property type '" +
                            type.substr(0, 32) + "'");
            words >> name;
            if (name.empty())
                throw Error("PLY header line " + std::to_string(lineNumber) + " has a property without a name");
            if (inVertexElement)
                axes |= name == "x" ? 1 : name == "y" ? 2 : name == "z" ? 4 : 0;
            elementBytes += double(bytes);
        }
        else if (std::ranges::any_of(line, [](unsigned char c)
                                     { return (c < 0x20 && c != '\t' && c != '\r') || c > 0x7e; }))
        {
            // Assimp skips header lines it does not know (exporters write their own, such as Blender 2.4's
            // "Created by ..."); a line that is not even text is a corrupt header.
            throw Error("PLY header line " + std::to_string(lineNumber) + " is not text");
        }
    }
    if (!ended)
        throw Error("PLY header has no end_header line");
    if (inVertexElement && axes != 7)
        throw Error("PLY vertex element lacks an x, y or z property");
    closeElement();
    std::error_code error;
    const double fileBytes = double(std::filesystem::file_size(inPath, error));
    const double headerBytes = double(file.tellg());
    if (binary && !error && headerBytes >= 0.0 && bodyBytes > fileBytes - headerBytes)
    {
        std::ostringstream message;
        message << std::fixed << std::setprecision(0) << "PLY header declares elements of at least " << bodyBytes
                << " bytes, the file holds " << (fileBytes - headerBytes) << " after its header";
        throw Error(message.str());
    }
}

const aiScene* ReadScene(Assimp::Importer& ioImporter, const std::string& inPath)
{
    // Triangulate polygons and split meshes by primitive type; welding, degenerate removal and the node
    // transforms are ours, so no JoinIdenticalVertices, FindDegenerates or PreTransformVertices.
    const unsigned flags = aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    const aiScene* scene = nullptr;
    try
    {
        scene = ioImporter.ReadFile(inPath, flags);
    }
    catch (const std::exception& exception)
    {
        throw Error("assimp failed: " + AssimpMessage(exception.what(), inPath));
    }
    catch (...)
    {
        throw Error("assimp failed with an unknown exception");
    }
    if (scene == nullptr)
    {
        const std::string message = ioImporter.GetErrorString();
        // Assimp catches its own std::bad_alloc: a count in the file asked for more memory than there is (or than
        // the isolated reader's limit, `ImportSettings::isolateReader`).
        if (message.find("bad_alloc") != std::string::npos)
            throw Error("the reader ran out of memory: a count in the file asks for more than its limit");
        throw Error("assimp: " + AssimpMessage(message, inPath));
    }
    if (scene->mRootNode == nullptr)
        throw Error("the file has no scene graph");
    return scene;
}

// Appends the triangles of `inMesh`, transformed by `inTransform`; points and lines are counted, not kept.
void AppendMesh(const aiMesh& inMesh, const aiMatrix4x4& inTransform, RawMesh& ioRaw, ImportReport& ioReport)
{
    if (inMesh.mNumFaces > 0 && inMesh.mFaces == nullptr)
        throw Error("mesh part without its face array");
    std::size_t triangles = 0;
    for (unsigned f = 0; f < inMesh.mNumFaces; ++f)
    {
        if (inMesh.mFaces[f].mNumIndices > 0 && inMesh.mFaces[f].mIndices == nullptr)
            throw Error("face " + std::to_string(f) + " without its index array");
        triangles += inMesh.mFaces[f].mNumIndices == 3 ? 1 : 0;
    }
    ioReport.droppedNonTriangles += inMesh.mNumFaces - triangles;
    if (triangles == 0 || inMesh.mVertices == nullptr)
        return;
    ++ioReport.parts;
    ioReport.inputVertices += inMesh.mNumVertices;
    ioReport.inputTriangles += triangles;
    const std::size_t first = ioRaw.positions.size();
    if (first + inMesh.mNumVertices > std::numeric_limits<std::uint32_t>::max())
        throw Error("too many vertices (more than 2^32)");
    for (unsigned v = 0; v < inMesh.mNumVertices; ++v)
    {
        const aiVector3D p = inTransform * inMesh.mVertices[v];
        const Vec3d position(p.x, p.y, p.z);
        if (!position.allFinite() || !position.cast<float>().allFinite())
            throw Error("non-finite coordinate at vertex " + std::to_string(v) + " of mesh part " +
                        std::to_string(ioReport.parts));
        ioRaw.positions.push_back(position);
    }
    for (unsigned f = 0; f < inMesh.mNumFaces; ++f)
    {
        const aiFace& face = inMesh.mFaces[f];
        if (face.mNumIndices != 3)
            continue;
        Triangle triangle;
        for (int k = 0; k < 3; ++k)
        {
            if (face.mIndices[k] >= inMesh.mNumVertices)
                throw Error("face " + std::to_string(f) + " has vertex index " +
                            std::to_string(face.mIndices[k]) + " out of range (" +
                            std::to_string(inMesh.mNumVertices) + " vertices)");
            triangle[k] = std::uint32_t(first + face.mIndices[k]);
        }
        ioRaw.triangles.push_back(triangle);
    }
}

// Walks the node hierarchy (iteratively, so deep files cannot overflow the stack), applying each node's
// transform to its meshes. A mesh used by several nodes is merged once per use.
RawMesh GatherScene(const aiScene& inScene, ImportReport& ioReport)
{
    RawMesh raw;
    std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack = {
        {inScene.mRootNode, inScene.mRootNode->mTransformation}};
    std::unordered_set<const aiNode*> visited;
    while (!stack.empty())
    {
        const auto [node, transform] = stack.back();
        stack.pop_back();
        if (!visited.insert(node).second)
            throw Error("the node hierarchy is not a tree");
        for (unsigned m = 0; m < node->mNumMeshes; ++m)
        {
            const unsigned index = node->mMeshes[m];
            if (index >= inScene.mNumMeshes || inScene.mMeshes[index] == nullptr)
                throw Error("node refers to missing mesh " + std::to_string(index));
            AppendMesh(*inScene.mMeshes[index], transform, raw, ioReport);
        }
        // Children pushed in reverse so that they are visited in file order.
        for (unsigned c = node->mNumChildren; c-- > 0;)
            if (node->mChildren[c] != nullptr)
                stack.emplace_back(node->mChildren[c], transform * node->mChildren[c]->mTransformation);
    }
    return raw;
}

// Reads the file with Assimp in this process and gathers its triangles.
RawMesh ReadRawMesh(const std::string& inPath, ImportReport& ioReport)
{
    Assimp::Importer importer;
    const aiScene* scene = ReadScene(importer, inPath);
    return GatherScene(*scene, ioReport);
}

// The child's answer of `ReadRawMeshIsolated`: the report's counts, the sizes, then the arrays (same host).
std::vector<std::uint8_t> PackRawMesh(const RawMesh& inRaw, const ImportReport& inReport)
{
    const std::uint64_t header[6] = {inReport.parts, inReport.inputVertices, inReport.inputTriangles,
                                     inReport.droppedNonTriangles, inRaw.positions.size(), inRaw.triangles.size()};
    const std::size_t positionBytes = inRaw.positions.size() * sizeof(Vec3d);
    const std::size_t triangleBytes = inRaw.triangles.size() * sizeof(Triangle);
    std::vector<std::uint8_t> bytes(sizeof header + positionBytes + triangleBytes);
    std::memcpy(bytes.data(), header, sizeof header);
    if (positionBytes > 0)
        std::memcpy(bytes.data() + sizeof header, inRaw.positions.data(), positionBytes);
    if (triangleBytes > 0)
        std::memcpy(bytes.data() + sizeof header + positionBytes, inRaw.triangles.data(), triangleBytes);
    return bytes;
}

RawMesh UnpackRawMesh(std::span<const std::uint8_t> inBytes, ImportReport& ioReport)
{
    std::uint64_t header[6];
    if (inBytes.size() < sizeof header)
        throw Error("the reader process returned a truncated mesh");
    std::memcpy(header, inBytes.data(), sizeof header);
    const std::uint64_t positions = header[4], triangles = header[5];
    const std::uint64_t rest = inBytes.size() - sizeof header;
    if (positions > rest / sizeof(Vec3d) || triangles > rest / sizeof(Triangle) ||
        positions * sizeof(Vec3d) + triangles * sizeof(Triangle) != rest)
        throw Error("the reader process returned a truncated mesh");
    ioReport.parts = header[0];
    ioReport.inputVertices = header[1];
    ioReport.inputTriangles = header[2];
    ioReport.droppedNonTriangles = header[3];
    RawMesh raw;
    raw.positions.resize(positions);
    raw.triangles.resize(triangles);
    if (positions > 0)
        std::memcpy(static_cast<void*>(raw.positions.data()), inBytes.data() + sizeof header, positions * sizeof(Vec3d));
    if (triangles > 0)
        std::memcpy(raw.triangles.data(), inBytes.data() + sizeof header + positions * sizeof(Vec3d),
                    triangles * sizeof(Triangle));
    for (const Triangle& t : raw.triangles)
        for (const std::uint32_t index : t)
            if (index >= positions)
                throw Error("the reader process returned a mesh with an index out of range");
    return raw;
}

// `ReadRawMesh` in a child process (`ImportSettings::isolateReader`), within limits scaled to the file's size:
// 512 MiB of address space plus 64 bytes per byte of file, and 10 CPU seconds plus one per MiB.
RawMesh ReadRawMeshIsolated(const std::string& inPath, double inTimeoutSeconds, ImportReport& ioReport)
{
    std::error_code error;
    const std::uintmax_t fileBytes = std::filesystem::file_size(inPath, error);
    const double size = error ? 0.0 : double(fileBytes);
    detail::ChildLimits limits;
    limits.memoryBytes = (std::uint64_t(512) << 20) + std::uint64_t(64.0 * size);
    limits.cpuSeconds = 10.0 + size / double(1 << 20);
    const std::vector<std::uint8_t> bytes = detail::RunInChildProcess(
        [&inPath]
        {
            ImportReport report;
            const RawMesh raw = ReadRawMesh(inPath, report);
            return PackRawMesh(raw, report);
        },
        inTimeoutSeconds, limits);
    return UnpackRawMesh(bytes, ioReport);
}

struct CellHash
{
    std::size_t operator()(const std::array<std::int64_t, 3>& inCell) const
    {
        std::uint64_t h = 1469598103934665603ull;
        for (const std::int64_t c : inCell)
            h = (h ^ std::uint64_t(c)) * 1099511628211ull;
        return std::size_t(h);
    }
};

// Welds vertices closer than `inTolerance` to the first vertex kept in their neighbourhood (a uniform
// grid of cell size `inTolerance`, 27 cells searched, the lowest kept index wins); returns the old-to-new
// index map.
std::vector<std::uint32_t> Weld(const std::vector<Vec3d>& inPositions, double inTolerance,
                                std::vector<Vec3d>& outKept)
{
    Eigen::AlignedBox3d box;
    for (const Vec3d& p : inPositions)
        box.extend(p);
    // Cell size: the tolerance, but coarse enough that cell coordinates fit comfortably in 64 bits.
    const double cell =
        std::max({inTolerance, box.diagonal().norm() * 1e-15, std::numeric_limits<double>::min()});
    const auto cellOf = [&](const Vec3d& inP)
    {
        const Vec3d c = ((inP - box.min()) / cell).array().floor();
        return std::array<std::int64_t, 3>{std::int64_t(c.x()), std::int64_t(c.y()), std::int64_t(c.z())};
    };
    std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::uint32_t>, CellHash> grid;
    std::vector<std::uint32_t> remap(inPositions.size());
    for (std::size_t i = 0; i < inPositions.size(); ++i)
    {
        const auto home = cellOf(inPositions[i]);
        std::uint32_t found = std::numeric_limits<std::uint32_t>::max();
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz)
                {
                    const auto it = grid.find({home[0] + dx, home[1] + dy, home[2] + dz});
                    if (it == grid.end())
                        continue;
                    for (const std::uint32_t k : it->second)
                        if (found > k && (outKept[k] - inPositions[i]).norm() <= inTolerance)
                            found = k;
                }
        if (found == std::numeric_limits<std::uint32_t>::max())
        {
            found = std::uint32_t(outKept.size());
            outKept.push_back(inPositions[i]);
            grid[home].push_back(found);
        }
        remap[i] = found;
    }
    return remap;
}

// Welds, drops degenerate triangles and unused vertices; fills the output mesh.
void Finish(const RawMesh& inRaw, double inWeldTolerance, ImportedMesh& ioMesh)
{
    Eigen::AlignedBox3d box;
    for (const Vec3d& p : inRaw.positions)
        box.extend(p);
    std::vector<Vec3d> kept;
    const std::vector<std::uint32_t> remap =
        Weld(inRaw.positions, inWeldTolerance * box.diagonal().norm(), kept);
    ioMesh.report.weldedVertices = inRaw.positions.size() - kept.size();
    std::vector<Vec3f> welded(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i)
        welded[i] = kept[i].cast<float>();
    std::vector<std::uint32_t> compact(kept.size(), std::numeric_limits<std::uint32_t>::max());
    for (const Triangle& input : inRaw.triangles)
    {
        const Triangle t = {remap[input[0]], remap[input[1]], remap[input[2]]};
        const Vec3d a = welded[t[0]].cast<double>(), b = welded[t[1]].cast<double>(),
                    c = welded[t[2]].cast<double>();
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || (b - a).cross(c - a).squaredNorm() == 0.0)
        {
            ++ioMesh.report.droppedDegenerate;
            continue;
        }
        Triangle output;
        for (int k = 0; k < 3; ++k)
        {
            if (compact[t[k]] == std::numeric_limits<std::uint32_t>::max())
            {
                compact[t[k]] = std::uint32_t(ioMesh.positions.size());
                ioMesh.positions.push_back(welded[t[k]]);
            }
            output[k] = compact[t[k]];
        }
        ioMesh.triangles.push_back(output);
    }
}

} // namespace

ImportedMesh ImportMesh(const std::string& inPath, const ImportSettings& inSettings)
{
    if (!std::isfinite(inSettings.weldTolerance) || inSettings.weldTolerance < 0.0)
        throw Error("weld tolerance must be finite and non-negative");
    CheckReadable(inPath);
    CheckOffHeader(inPath);
    CheckPlyHeader(inPath);
    if (inSettings.isolateReader && !(inSettings.readerTimeoutSeconds > 0.0))
        throw Error("reader timeout must be positive");
    ImportedMesh mesh;
    const RawMesh raw = inSettings.isolateReader
                            ? ReadRawMeshIsolated(inPath, inSettings.readerTimeoutSeconds, mesh.report)
                            : ReadRawMesh(inPath, mesh.report);
    if (raw.triangles.empty())
        throw Error("the file has no triangles" +
                    std::string(mesh.report.droppedNonTriangles > 0 ? " (only points or lines)" : ""));
    Finish(raw, inSettings.weldTolerance, mesh);
    if (mesh.triangles.empty())
        throw Error("no triangle left after dropping " + std::to_string(mesh.report.droppedDegenerate) +
                    " degenerate ones");
    return mesh;
}

} // namespace bdt
