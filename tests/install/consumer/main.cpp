// Builds a body from a procedural shape through the installed headers and libraries, and checks that a
// deformed sphere query gives a contact with a plane it must touch. One header by its 0.2 path, which forwards
// to its concept folder for this version (README "Changes").
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/ProceduralShapes.h>
#include <bdt/core/queries/TreeQueries.h>

#include <cstdio>

int main()
{
    bdt::ShapeMesh mesh = bdt::MakeShape(bdt::EShape::Box, 500);
    auto tree = std::make_shared<const bdt::BDTree>(
        bdt::BDTree::Build(bdt::MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), 4)));
    bdt::TreeState body(std::make_shared<const bdt::ContactProxies>(tree, 6));
    const float q[] = {0.05f, 0.0f, -0.02f, 0.01f};
    if (!body.SetQ(q))
        return 1;
    std::vector<bdt::ProxyContact> contacts;
    bdt::QueryStats stats;
    bdt::CollideProxies({&body, bdt::Pose::Identity()}, bdt::Plane{bdt::Vec3d::UnitY(), 0.0}, contacts, stats);
    std::printf("%zu contacts, %llu overlap tests\n", contacts.size(), static_cast<unsigned long long>(stats.overlapTests));
    return contacts.empty() ? 1 : 0;
}
