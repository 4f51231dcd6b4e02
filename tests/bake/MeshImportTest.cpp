#include "support/ErrorOf.h"
#include "support/TestModels.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/core/base/Error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace bdt
{
namespace
{

std::string Model(const std::string& inRelative)
{
    return std::string(BDT_ASSIMP_MODELS) + "/" + inRelative;
}

// Writes `inText` to a file in the test scratch folder and returns its path.
std::string WriteTemp(const std::string& inName, const std::string& inText)
{
    const std::string path = std::string(BDT_TEST_TMP) + "/" + inName;
    std::filesystem::create_directories(BDT_TEST_TMP);
    std::ofstream(path) << inText;
    return path;
}

void ExpectValid(const ImportedMesh& inMesh)
{
    ASSERT_FALSE(inMesh.triangles.empty());
    for (const Triangle& t : inMesh.triangles)
    {
        for (const std::uint32_t v : t)
            ASSERT_LT(v, inMesh.positions.size());
        ASSERT_TRUE(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
    }
    for (const Vec3f& p : inMesh.positions)
        ASSERT_TRUE(p.allFinite());
}

// The message of the bdt::Error thrown by importing `inPath`, or "" if it imported.
std::string ImportError(const std::string& inPath)
{
    return test::ErrorOf([&] { ImportMesh(inPath); });
}

TEST(MeshImportTest, SpiderObj)
{
    const ImportedMesh mesh = ImportMesh(Model("OBJ/spider.obj"));
    ExpectValid(mesh);
    EXPECT_GT(mesh.triangles.size(), 1000u);
    EXPECT_GT(mesh.report.parts, 1u); // The spider is made of several groups.
    EXPECT_GT(mesh.report.weldedVertices, 0u);
    EXPECT_LT(mesh.positions.size(), mesh.report.inputVertices);
    EXPECT_EQ(mesh.triangles.size() + mesh.report.droppedDegenerate, mesh.report.inputTriangles);
}

TEST(MeshImportTest, WusonOff)
{
    const ImportedMesh mesh = ImportMesh(Model("OFF/Wuson.off"));
    ExpectValid(mesh);
    EXPECT_EQ(mesh.report.inputVertices, 3205u); // The header's counts.
    EXPECT_EQ(mesh.report.inputTriangles, 3732u);
    EXPECT_EQ(mesh.report.parts, 1u);
    // The file repeats vertices along texture seams; welding merges them.
    EXPECT_EQ(mesh.positions.size() + mesh.report.weldedVertices, 3205u);
    EXPECT_GT(mesh.report.weldedVertices, 0u);
}

TEST(MeshImportTest, PlyCube)
{
    for (const char* file : {"PLY/cube.ply", "PLY/cube_binary.ply"})
    {
        const ImportedMesh mesh = ImportMesh(Model(file));
        ExpectValid(mesh);
        EXPECT_EQ(mesh.positions.size(), 8u) << file;
        EXPECT_EQ(mesh.triangles.size(), 12u) << file;
    }
}

// Wuson as Blender 2.47 wrote it to PLY, with a "Created by ..." header line that Assimp skips: the same 3732
// triangles as the OFF file; a header line that is not text is still refused.
TEST(MeshImportTest, WusonPlyWithAnExportersHeaderLine)
{
    const ImportedMesh mesh = ImportMesh(Model("PLY/Wuson.ply"));
    ExpectValid(mesh);
    EXPECT_EQ(mesh.report.inputTriangles, 3732u);
    EXPECT_EQ(mesh.triangles.size() + mesh.report.droppedDegenerate, 3732u);
    const std::string path =
        WriteTemp("binary-header-line.ply",
                  "ply\nformat ascii 1.0\nCreated \x01\x7f by\nelement vertex 3\nproperty float x\nproperty float y\n"
                  "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n"
                  "1 0 0\n0 1 0\n3 0 1 2\n");
    try
    {
        ImportMesh(path);
        ADD_FAILURE() << "a binary header line was accepted";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find("line 3 is not text"), std::string::npos) << error.what();
    }
}

TEST(MeshImportTest, StlAsciiAndBinaryAgree)
{
    const ImportedMesh ascii = ImportMesh(Model("STL/Spider_ascii.stl"));
    const ImportedMesh binary = ImportMesh(Model("STL/Spider_binary.stl"));
    ExpectValid(ascii);
    ExpectValid(binary);
    EXPECT_GT(ascii.report.weldedVertices, 0u); // STL stores three corners per facet.
    EXPECT_EQ(ascii.triangles.size(), binary.triangles.size());
    EXPECT_EQ(ascii.positions.size(), binary.positions.size());
}

TEST(MeshImportTest, WeldsDuplicatesWithinTolerance)
{
    // A unit square as two triangles with its own corners each; one copy off by 2e-7 (within
    // the default tolerance of 1e-6 of the diagonal).
    const std::string path = WriteTemp("weld.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\n"
                                                   "v 0 0 0\nv 1 1.0000002 0\nv 0 1 0\n"
                                                   "f 1 2 3\nf 4 5 6\n");
    const ImportedMesh welded = ImportMesh(path);
    ExpectValid(welded);
    EXPECT_EQ(welded.positions.size(), 4u);
    EXPECT_EQ(welded.triangles.size(), 2u);
    EXPECT_EQ(welded.report.weldedVertices, 2u);
    EXPECT_EQ(welded.triangles[0][0], welded.triangles[1][0]);

    const ImportedMesh exact = ImportMesh(path, ImportSettings{0.0});
    EXPECT_EQ(exact.positions.size(), 5u); // Only the exact copy is welded.
}

TEST(MeshImportTest, DropsPointsAndLines)
{
    const ImportedMesh mesh = ImportMesh(Model("OBJ/testmixed.obj"));
    ExpectValid(mesh);
    EXPECT_GT(mesh.report.droppedNonTriangles, 0u);
    EXPECT_EQ(mesh.triangles.size(), 12u); // Six quads.
    EXPECT_EQ(mesh.positions.size(), 8u);
}

TEST(MeshImportTest, AppliesNodeTransformsToEveryInstance)
{
    // One triangle mesh used by two nodes, the second translated by 10 along x and scaled by 2.
    // Three float positions (0,0,0) (1,0,0) (0,1,0), then the uint16 indices 0 1 2.
    const std::string buffer = "data:application/octet-stream;base64,"
                               "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=";
    const std::string path = WriteTemp("instances.gltf", R"({
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0, 1]}],
  "nodes": [{"mesh": 0}, {"mesh": 0, "translation": [10, 0, 0], "scale": [2, 2, 2]}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
  "buffers": [{"byteLength": 44, "uri": ")" + buffer + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                  {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}]
})");
    const ImportedMesh mesh = ImportMesh(path);
    ExpectValid(mesh);
    EXPECT_EQ(mesh.report.parts, 2u);
    EXPECT_EQ(mesh.triangles.size(), 2u);
    ASSERT_EQ(mesh.positions.size(), 6u);
    Eigen::AlignedBox3f box;
    for (const Vec3f& p : mesh.positions)
        box.extend(p);
    EXPECT_FLOAT_EQ(box.max().x(), 12.0f);
    EXPECT_FLOAT_EQ(box.max().y(), 2.0f);
}

TEST(MeshImportTest, InvalidFilesThrowOneLineErrorsOrImport)
{
    int files = 0, errors = 0;
    for (const auto& entry : std::filesystem::directory_iterator(Model("invalid")))
    {
        const std::string path = entry.path().string();
        const std::string name = entry.path().filename().string();
        ++files;
        std::string message;
        try
        {
            const ImportedMesh mesh = ImportMesh(path);
            ExpectValid(mesh);
            continue;
        }
        catch (const Error& error)
        {
            message = error.what();
        }
        ++errors;
        EXPECT_FALSE(message.empty()) << name;
        EXPECT_EQ(message.find('\n'), std::string::npos) << name << ": " << message;
        EXPECT_EQ(message.find(name), std::string::npos) << name << ": " << message;
        EXPECT_NE(message.back(), ' ') << name;
    }
    EXPECT_GE(files, 10);
    EXPECT_GE(errors, 10); // At least the empty files.
}

TEST(MeshImportTest, OffHeaderWithImpossibleCountsIsRejectedBeforeAllocating)
{
    const std::string message = ImportError(Model("invalid/OutOfMemory.off"));
    EXPECT_NE(message.find("more than the file can hold"), std::string::npos) << message;
    const std::string path = WriteTemp("header.off", "OFF 3 1000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    EXPECT_NE(ImportError(path).find("more than the file can hold"), std::string::npos);
}

TEST(MeshImportTest, MissingFileThrows)
{
    const std::string message = ImportError(std::string(BDT_TEST_TMP) + "/no_such_mesh.obj");
    EXPECT_NE(message.find("no such file"), std::string::npos) << message;
    EXPECT_THROW(ImportMesh(BDT_TEST_TMP), Error); // A directory.
    EXPECT_THROW(ImportMesh("/dev/null"), Error);  // Not a regular file.
}

TEST(MeshImportTest, NonFiniteCoordinateThrows)
{
    const std::string path = WriteTemp("nan.obj", "v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n");
    const std::string message = ImportError(path);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(MeshImportTest, OnlyDegenerateFacesThrow)
{
    // A repeated vertex and a collinear triangle.
    const std::string path = WriteTemp("degenerate.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 1 2\nf 1 2 3\n");
    const std::string message = ImportError(path);
    EXPECT_NE(message.find("no triangle left"), std::string::npos) << message;
}

TEST(MeshImportTest, NegativeToleranceThrows)
{
    EXPECT_THROW(ImportMesh(Model("PLY/cube.ply"), ImportSettings{-1.0}), Error);
}

TEST(MeshImportTest, FeedsTheTreeBuilder)
{
    const auto tree = test::AssimpTree("OFF/Wuson.off", 6);
    EXPECT_GT(tree->GetModel().TriangleCount(), 3000u);
}

// Assimp aborts (an ai_assert in its triangulation) on this PLY file, found by the mesh fuzzer; read in a child
// process, the abort is a one-line error and this process goes on.
TEST(MeshImportTest, AReaderCrashIsAnErrorWhenIsolated)
{
    std::ifstream fuzzInput(std::string(BDT_SOURCE_DIR) + "/tests/fuzz/regressions/mesh/ply-face-list-abort.ply",
                            std::ios::binary);
    ASSERT_TRUE(fuzzInput);
    std::string bytes((std::istreambuf_iterator<char>(fuzzInput)), std::istreambuf_iterator<char>());
    const std::string path = WriteTemp("reader-abort.ply", bytes.substr(1)); // the fuzz input's first byte is its format
    const std::string message = test::ErrorOf([&] { (void)ImportMesh(path); });
    EXPECT_EQ(message, "the reader crashed (SIGABRT)");
    // The same file, well formed apart from its faces, still imports after the crash: nothing was left behind.
    ExpectValid(ImportMesh(Model("PLY/cube.ply")));
}

TEST(MeshImportTest, IsolatedAndInProcessReadsGiveTheSameMesh)
{
    ImportSettings inProcess;
    inProcess.isolateReader = false;
    for (const char* model : {"OBJ/spider.obj", "OFF/Wuson.off", "PLY/cube.ply"})
    {
        const ImportedMesh isolated = ImportMesh(Model(model));
        const ImportedMesh direct = ImportMesh(Model(model), inProcess);
        EXPECT_EQ(isolated.positions, direct.positions) << model;
        EXPECT_EQ(isolated.triangles, direct.triangles) << model;
        EXPECT_EQ(isolated.report.inputVertices, direct.report.inputVertices) << model;
        EXPECT_EQ(isolated.report.parts, direct.report.parts) << model;
    }
    ImportSettings badTimeout;
    badTimeout.readerTimeoutSeconds = 0.0;
    EXPECT_EQ(test::ErrorOf([&] { (void)ImportMesh(Model("PLY/cube.ply"), badTimeout); }),
              "reader timeout must be positive");
}

} // namespace
} // namespace bdt
