#include "support/ErrorOf.h"
#include "support/TetModels.h"

#include <bdt/bake/BulletReducedFiles.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

ModalBakeSettings Settings(std::uint32_t inModes)
{
    ModalBakeSettings settings;
    settings.modes = inModes;
    return settings;
}

// The message of the bdt::Error thrown by loading `inFolder`, or "" if it loaded.
std::string LoadError(const std::string& inFolder)
{
    return test::ErrorOf([&] { LoadBulletReducedFiles(inFolder); });
}

TEST(BulletReducedFiles, ExportThenImportGivesTheSameBasis)
{
    // A tetrahedral bake whose surface is its own boundary; written in Bullet's format and read back.
    TetModes modes;
    const Model baked = MakeTetModalModel(test::BoxTets({8, 2, 1}, 0.05), {}, {}, Settings(6), {}, &modes);
    const std::string folder = test::ScratchFolder("bullet_roundtrip");
    const BulletReducedFiles written = MakeBulletFiles(modes, 1.0);
    SaveBulletReducedFiles(written, folder);
    const BulletReducedFiles read = LoadBulletReducedFiles(folder);
    EXPECT_EQ(read.modes, written.modes); // doubles, bit for bit
    EXPECT_EQ(read.eigenvalues, written.eigenvalues);
    EXPECT_EQ(read.nodeMass, written.nodeMass);
    ASSERT_EQ(read.mesh.positions.size(), written.mesh.positions.size());

    const Model imported = MakeModelFromBulletFiles(read, 0, 0.0, 0.0);
    ASSERT_EQ(imported.VertexCount(), baked.VertexCount());
    ASSERT_EQ(imported.TriangleCount(), baked.TriangleCount());
    ASSERT_EQ(imported.ModeCount(), baked.ModeCount());
    for (std::size_t v = 0; v < baked.VertexCount(); ++v)
        EXPECT_EQ(imported.Positions()[v], baked.Positions()[v]) << v;
    for (std::size_t t = 0; t < baked.TriangleCount(); ++t)
        EXPECT_EQ(imported.Triangles()[t], baked.Triangles()[t]) << t;
    ASSERT_EQ(imported.Basis().size(), baked.Basis().size());
    for (std::size_t i = 0; i < baked.Basis().size(); ++i)
        ASSERT_EQ(imported.Basis()[i], baked.Basis()[i]) << i; // float precision: the same floats
    for (std::size_t j = 0; j < baked.ModeCount(); ++j)
        EXPECT_FLOAT_EQ(imported.Modes()[j].frequency, baked.Modes()[j].frequency);
    // The first modes only.
    EXPECT_EQ(MakeModelFromBulletFiles(read, 2, 0.0, 0.0).ModeCount(), 2u);
    EXPECT_THROW(MakeModelFromBulletFiles(read, 7, 0.0, 0.0), Error);
}

TEST(BulletReducedFiles, VoxelBakeExportsTheLatticeAsTetrahedra)
{
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    ModalBakeSettings settings = Settings(4);
    settings.resolution = 20;
    settings.scale = 0.5;
    const LatticeModes modes = ComputeLatticeModes(beam.positions, beam.triangles, settings);
    const BulletReducedFiles files = MakeBulletFiles(modes, settings.scale);
    ASSERT_EQ(files.mesh.positions.size(), modes.nodes);
    EXPECT_EQ(files.mesh.tets.size(), 6 * modes.grid.SolidCount());
    // The tetrahedra fill the solid cells (metres), the lumped masses sum to the body's mass.
    double volume = 0.0;
    for (const auto& t : files.mesh.tets)
        volume += std::abs(TetSixVolume(files.mesh.positions[t[0]], files.mesh.positions[t[1]],
                                        files.mesh.positions[t[2]], files.mesh.positions[t[3]])) /
                  6.0;
    const double h = modes.grid.cellSize * settings.scale;
    EXPECT_NEAR(volume, double(modes.grid.SolidCount()) * h * h * h, 1e-9 * volume);
    double mass = 0.0;
    for (double m : files.nodeMass)
        mass += m;
    EXPECT_NEAR(mass, modes.totalMass, 1e-9 * mass);
    // Nodes at the lattice's node positions; modes and K_r as solved.
    const std::uint32_t nx = modes.grid.cells[0] + 1, ny = modes.grid.cells[1] + 1;
    for (std::size_t n = 0; n < modes.nodes; n += 37)
    {
        const std::uint32_t l = modes.elasticity.latticeOfNode[n];
        const Vec3d expected =
            (modes.grid.origin + modes.grid.cellSize * Vec3d(l % nx, (l / nx) % ny, l / (nx * ny))) *
            settings.scale;
        EXPECT_LE((files.mesh.positions[n] - expected).norm(), 1e-12);
    }
    EXPECT_EQ(files.modes, modes.shapes);
    EXPECT_EQ(files.reducedStiffness, modes.eigenvalues);
    // Bullet integrates with unit reduced mass in the lumped masses: close to the consistent normalisation.
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(files.modes.cols(), files.modes.cols());
    for (std::size_t n = 0; n < files.nodeMass.size(); ++n)
        gram += files.nodeMass[n] * files.modes.middleRows(Eigen::Index(3 * n), 3).transpose() *
                files.modes.middleRows(Eigen::Index(3 * n), 3);
    EXPECT_LT((gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).cwiseAbs().maxCoeff(), 0.1)
        << gram;
}

TEST(BulletReducedFiles, BadFoldersGiveOneLineErrors)
{
    TetModes modes;
    MakeTetModalModel(test::BoxTets({4, 1, 1}, 0.1), {}, {}, Settings(3), {}, &modes);
    const BulletReducedFiles files = MakeBulletFiles(modes, 1.0);
    const auto fresh = [&](const char* inName)
    {
        const std::string folder = test::ScratchFolder(std::string("bullet_bad_") + inName);
        SaveBulletReducedFiles(files, folder);
        return folder;
    };
    const auto expectError = [](const std::string& inFolder, const char* inExpected)
    {
        const std::string message = LoadError(inFolder);
        EXPECT_NE(message.find(inExpected), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos);
    };
    EXPECT_EQ(LoadError(fresh("good")), "");
    {
        const std::string folder = fresh("missing");
        std::filesystem::remove(folder + "/K_r_diag_mat.bin");
        expectError(folder, "K_r_diag_mat.bin: missing");
    }
    {
        const std::string folder = fresh("truncated");
        std::filesystem::resize_file(folder + "/modes.bin", 4 + 8 * 5);
        expectError(folder, "modes.bin: holds 5 values");
    }
    {
        const std::string folder = fresh("nan");
        std::fstream file(folder + "/eigenvalues.bin", std::ios::in | std::ios::out | std::ios::binary);
        const double nan = std::nan("");
        file.seekp(4 + 8);
        file.write(reinterpret_cast<const char*>(&nan), 8);
        file.close();
        expectError(folder, "eigenvalues.bin: value 1 is not finite");
    }
    {
        const std::string folder = fresh("count");
        std::fstream file(folder + "/M_diag_mat.bin", std::ios::in | std::ios::out | std::ios::binary);
        const std::uint32_t huge = 0xffffffffu;
        file.write(reinterpret_cast<const char*>(&huge), 4);
        file.close();
        expectError(folder, "its count says 4294967295");
    }
    {
        // Inconsistent sizes are refused on writing; a folder whose files disagree is refused on reading.
        BulletReducedFiles fewer = files;
        fewer.eigenvalues.pop_back();
        EXPECT_THROW(SaveBulletReducedFiles(fewer, test::ScratchFolder("bullet_bad_write")), Error);
        const std::string folder = fresh("modes");
        std::ofstream file(folder + "/eigenvalues.bin", std::ios::binary | std::ios::trunc);
        const std::uint32_t two = 2;
        const double values[2] = {1.0, 2.0};
        file.write(reinterpret_cast<const char*>(&two), 4);
        file.write(reinterpret_cast<const char*>(values), 16);
        file.close();
        expectError(folder, "eigenvalues.bin: 2 values, K_r_diag_mat.bin 3");
    }
    {
        const std::string folder = fresh("vtk");
        std::filesystem::remove(folder + "/mesh.vtk");
        expectError(folder, "no .vtk tetrahedral mesh");
    }
    expectError(test::ScratchFolder("bullet_bad_empty") + "/none", "not a folder");
}

} // namespace
} // namespace bdt
