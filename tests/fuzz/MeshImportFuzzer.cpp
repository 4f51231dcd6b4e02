// Fuzz target of mesh import as `bdt-bake` does it (`ImportMesh`, then a smooth model and its BD-Tree), for
// libFuzzer (`./dev fuzz mesh`) and for the replay driver that ctest runs over the seed corpus and every crash
// found (`fuzz.mesh_replay`).
//
// Assimp reads in a child process, as bdt-bake does (`ImportSettings::isolateReader`): its crashes on malformed
// files are errors by design (the first fuzzing found several in its PLY reader; they are in regressions/mesh).
//
// Input: one byte choosing the file's extension (its value modulo 5: .obj .off .ply .stl .gltf), then the
// file's bytes, written to a temporary file that Assimp reads (it reads by path; the extension picks its
// reader first). An import either throws `bdt::Error` with a one-line message or gives a mesh the rest of the
// bake can use: indices in range, finite positions, no triangle repeating a vertex. Small meshes are then
// baked, and every tree node's updated sphere must contain its deformed vertices (no tolerance), at rest and
// at a q read from the input's last bytes.

#include "FuzzSupport.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/bounds/TreeState.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

constexpr std::array<const char*, 5> cExtensions = {".obj", ".off", ".ply", ".stl", ".gltf"};
constexpr std::size_t cMaxBakedTriangles = 2000; // larger meshes are imported, not baked (fuzzer speed)
constexpr std::uint32_t cModes = 3;

/// A temporary file of this process, written per input and removed at exit.
class TemporaryFile
{
public:
    explicit TemporaryFile(const char* inExtension)
        : mPath((std::filesystem::temp_directory_path() /
                 ("bdt-fuzz-mesh-" + std::to_string(::getpid()) + inExtension))
                    .string())
    {
    }
    ~TemporaryFile() { std::remove(mPath.c_str()); }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    const std::string& Path() const { return mPath; }
    void Write(std::span<const std::uint8_t> inBytes) const
    {
        std::FILE* file = std::fopen(mPath.c_str(), "wb");
        bdt::fuzz::Require(file != nullptr, "cannot write the temporary mesh file");
        const bool written = inBytes.empty() || std::fwrite(inBytes.data(), 1, inBytes.size(), file) == inBytes.size();
        std::fclose(file);
        bdt::fuzz::Require(written, "cannot write the temporary mesh file");
    }

private:
    std::string mPath;
};

void CheckImported(const bdt::ImportedMesh& inMesh)
{
    using bdt::fuzz::Require;
    Require(!inMesh.triangles.empty(), "an import without triangles did not throw");
    for (const bdt::Vec3f& p : inMesh.positions)
        Require(p.allFinite(), "an imported position is not finite");
    for (const bdt::Triangle& t : inMesh.triangles)
    {
        for (const std::uint32_t index : t)
            Require(index < inMesh.positions.size(), "an imported index is out of range");
        Require(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], "an imported triangle repeats a vertex");
    }
}

/// Every node's sphere holds its deformed vertices at the state's q (brute force, no tolerance).
void CheckSpheres(bdt::TreeState& ioState)
{
    const bdt::BDTree& tree = ioState.Tree();
    const bdt::Model& model = tree.GetModel();
    std::vector<bdt::Vec3d> deformed(model.VertexCount());
    for (std::size_t v = 0; v < deformed.size(); ++v)
        deformed[v] = model.DeformedPosition(v, ioState.Q());
    for (std::uint32_t node = 0; node < tree.NodeCount(); ++node)
    {
        const bdt::UpdatedSphere sphere = ioState.Sphere(node);
        const bdt::Vec3d centre(sphere.center[0], sphere.center[1], sphere.center[2]);
        const bdt::BDTreeNode& n = tree.Node(node);
        for (std::uint32_t k = n.firstTriangle; k < n.firstTriangle + n.triangleCount; ++k)
            for (const std::uint32_t v : model.Triangles()[k])
                bdt::fuzz::Require((deformed[v] - centre).norm() <= sphere.radius,
                                   "a deformed vertex lies outside its node's sphere");
    }
}

void Bake(bdt::ImportedMesh inMesh, std::span<const std::uint8_t> inBytes)
{
    std::shared_ptr<const bdt::BDTree> tree;
    try
    {
        const bdt::Model model = bdt::MakeSmoothModel(std::move(inMesh.positions), std::move(inMesh.triangles), cModes);
        tree = std::make_shared<const bdt::BDTree>(bdt::BDTree::Build(model));
    }
    catch (const bdt::Error& error)
    {
        bdt::fuzz::CheckOneLine(error.what());
        return;
    }
    bdt::TreeState state(std::make_shared<const bdt::ContactProxies>(tree, 64));
    CheckSpheres(state);
    bdt::fuzz::ByteSource source(inBytes);
    std::vector<float> q(cModes);
    for (float& value : q)
        value = source.Float();
    if (state.SetQ(q))
        CheckSpheres(state);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* inData, std::size_t inSize)
{
    if (inSize == 0)
        return 0;
    static const std::array<TemporaryFile, cExtensions.size()> files = {
        TemporaryFile(cExtensions[0]), TemporaryFile(cExtensions[1]), TemporaryFile(cExtensions[2]),
        TemporaryFile(cExtensions[3]), TemporaryFile(cExtensions[4])};
    const TemporaryFile& file = files[inData[0] % cExtensions.size()];
    const std::span<const std::uint8_t> content(inData + 1, inSize - 1);
    file.Write(content);
    bdt::ImportedMesh mesh;
    try
    {
        mesh = bdt::ImportMesh(file.Path());
    }
    catch (const bdt::Error& error)
    {
        bdt::fuzz::CheckOneLine(error.what());
        // Assimp and the gathering of its scene run in a child process (`ImportSettings::isolateReader`): a
        // crash there is an error by design, but a sanitizer's report in our own code (its exit code 1) is a bug.
        // (The whole message: Assimp's own messages may quote the file, which may hold those words.)
        bdt::fuzz::Require(std::strcmp(error.what(), "the reader failed (exit code 1)") != 0,
                           "the reader process ended with a sanitizer report");
        return 0;
    }
    CheckImported(mesh);
    if (mesh.triangles.size() <= cMaxBakedTriangles)
        Bake(std::move(mesh), content);
    return 0;
}
