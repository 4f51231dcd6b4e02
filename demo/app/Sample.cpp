#include "Sample.h"

#include <algorithm>
#include <bdt/bake/MeshImport.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cctype>
#include <map>
#include <tuple>

namespace bdt::demo
{

namespace
{

std::vector<SampleEntry>& Registry()
{
    static std::vector<SampleEntry> registry;
    return registry;
}

std::string Lower(std::string inText)
{
    for (char& c : inText)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return inText;
}

} // namespace

bool RegisterSample(std::string inName, std::string inDescription,
                    std::function<std::unique_ptr<Sample>()> inCreate)
{
    std::vector<SampleEntry>& registry = Registry();
    registry.push_back({std::move(inName), std::move(inDescription), std::move(inCreate)});
    std::sort(registry.begin(), registry.end(),
              [](const SampleEntry& inA, const SampleEntry& inB) { return inA.name < inB.name; });
    return true;
}

const std::vector<SampleEntry>& Samples()
{
    return Registry();
}

const SampleEntry* FindSample(const std::string& inName)
{
    for (const SampleEntry& entry : Registry())
        if (Lower(entry.name) == Lower(inName))
            return &entry;
    return nullptr;
}

std::shared_ptr<const DeformableAsset> BakeAsset(const std::string& inShapeOrFile, std::uint32_t inTriangles,
                                                 std::uint32_t inModes, EBasis inBasis)
{
    static std::map<std::tuple<std::string, std::uint32_t, std::uint32_t, EBasis>,
                    std::shared_ptr<const DeformableAsset>>
        cache;
    const auto key = std::make_tuple(inShapeOrFile, inTriangles, inModes, inBasis);
    if (const auto found = cache.find(key); found != cache.end())
        return found->second;
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
    if (const std::optional<EShape> shape = ShapeFromName(inShapeOrFile))
    {
        ShapeMesh mesh = MakeShape(*shape, inTriangles);
        positions = std::move(mesh.positions);
        triangles = std::move(mesh.triangles);
    }
    else
    {
        ImportedMesh mesh;
        try
        {
            mesh = ImportMesh(inShapeOrFile);
        }
        catch (const Error& error)
        {
            throw Error(inShapeOrFile + ": " + error.what()); // ImportMesh's messages leave the file to us
        }
        positions = std::move(mesh.positions);
        triangles = std::move(mesh.triangles);
    }
    std::shared_ptr<const BDTree> tree;
    try
    {
        if (inBasis == EBasis::Modal)
        {
            ModalBakeSettings bake; // bdt-bake --basis modal's material and resolution
            bake.modes = inModes;
            tree = std::make_shared<const BDTree>(
                BDTree::Build(MakeModalModel(std::move(positions), std::move(triangles), bake)));
        }
        else
            tree = std::make_shared<const BDTree>(
                BDTree::Build(MakeSmoothModel(std::move(positions), std::move(triangles), inModes)));
    }
    catch (const Error& error)
    {
        throw Error(inShapeOrFile + ": " + error.what());
    }
    auto asset = DeformableAsset::Create(std::move(tree));
    cache[key] = asset;
    return asset;
}

} // namespace bdt::demo
