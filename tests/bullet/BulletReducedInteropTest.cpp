// Bullet's own reduced deformable body reads the files that `bdt-bake --export-bullet` writes.

#include "support/TetModels.h"

#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBody.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBodyHelpers.h>
#include <BulletSoftBody/btSoftBody.h>
#include <bdt/bake/BulletReducedFiles.h>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>

namespace bdt
{
namespace
{

TEST(BulletReducedInterop, BulletLoadsTheExportedBody)
{
    ModalBakeSettings settings;
    settings.modes = 5;
    const TetModes modes = ComputeTetModes(test::BoxTets({6, 2, 2}, 0.05), settings);
    const BulletReducedFiles files = MakeBulletFiles(modes, 1.0);
    const std::string folder = test::ScratchFolder("bullet_interop");
    SaveBulletReducedFiles(files, folder);

    btSoftBodyWorldInfo worldInfo;
    std::unique_ptr<btReducedDeformableBody> body(
        btReducedDeformableBodyHelpers::createReducedDeformableObject(
            worldInfo, folder + "/", cBulletMeshFile, int(settings.modes), false));
    ASSERT_NE(body, nullptr);
    const std::size_t nodes = files.mesh.positions.size();
    ASSERT_EQ(std::size_t(body->m_nodes.size()), nodes);
    EXPECT_EQ(std::size_t(body->m_tetras.size()), files.mesh.tets.size());
    for (std::size_t n = 0; n < nodes; ++n)
        for (int axis = 0; axis < 3; ++axis)
            EXPECT_FLOAT_EQ(float(body->m_nodes[int(n)].m_x[axis]), float(files.mesh.positions[n][axis]));
    ASSERT_EQ(body->m_modes.size(), int(settings.modes));
    for (int j = 0; j < int(settings.modes); ++j)
    {
        EXPECT_FLOAT_EQ(float(body->m_Kr[j]), float(modes.eigenvalues[std::size_t(j)]));
        EXPECT_FLOAT_EQ(float(body->m_eigenvalues[j]), float(modes.eigenvalues[std::size_t(j)]));
        for (std::size_t i = 0; i < 3 * nodes; i += 7)
            EXPECT_FLOAT_EQ(float(body->m_modes[j][int(i)]), float(modes.shapes(Eigen::Index(i), j)));
    }
    // The node masses sum to ρ × volume.
    EXPECT_NEAR(double(body->getTotalMass()), modes.elasticity.totalMass, 1e-4 * modes.elasticity.totalMass);
}

} // namespace
} // namespace bdt
