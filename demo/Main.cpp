// bdt-demo: the BD-Tree sandbox. Interactive with a display; `--headless` renders offscreen (Xvfb + Mesa is
// enough) and writes a screenshot and stats.
#include "app/App.h"

#include <CLI/CLI.hpp>
#include <bdt/core/base/Error.h>
#include <cstdio>
#include <exception>
#include <map>

int main(int argc, char** argv)
{
    bdt::demo::AppOptions options;
    CLI::App cli("bdt-demo: reduced deformable bodies with BD-Tree collision detection in Bullet");
    std::string scenes;
    for (const bdt::demo::SampleEntry& entry : bdt::demo::Samples())
        scenes += "\n  " + entry.name + ": " + entry.description;
    cli.footer("Scenes:" + scenes);
    cli.add_option("--scene", options.scene, "Scene to open");
    cli.add_flag("--headless", options.headless,
                 "Render offscreen, no window: step --frames, then write outputs");
    cli.add_option("--frames", options.frames, "Headless: frames (physics steps of 1/60 s) to run")
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--screenshot", options.screenshot, "Headless: PNG of the last frame");
    cli.add_option("--stats", options.stats, "Headless: JSON of the run's figures");
    cli.add_option("--width", options.width, "Window or image width, pixels")->check(CLI::Range(64, 8192));
    cli.add_option("--height", options.height, "Window or image height, pixels")->check(CLI::Range(64, 8192));
    cli.add_option("--count", options.sample.count, "Bodies in the scene (0: the scene's default)")
        ->check(CLI::Range(0u, 100000u));
    cli.add_option("--model", options.sample.model, "Mesh file for the drop scene (any Assimp format)");
    cli.add_option("--modes", options.sample.modes, "M of the bases baked on the fly")
        ->check(CLI::Range(0u, 64u));
    std::string basis = "smooth";
    cli.add_option("--basis", basis,
                   "Basis of the chairs scene's bodies: smooth (procedural fields) or modal (vibration modes, as "
                   "bdt-bake --basis modal bakes them)")
        ->check(CLI::IsMember({"smooth", "modal"}));
    cli.add_option("--level", options.sample.proxyLevel, "Contact proxy level L")->check(CLI::Range(0u, 30u));
    cli.add_option("--budget", options.traversalBudget,
                   "Interruptible traversal: sphere tests per deformable pair and step (0: complete)")
        ->check(CLI::Range(0u, 100000u));
    std::string contactModel = "surface";
    cli.add_option("--contact-model", contactModel,
                   "Where deformable bodies make contacts: surface (their triangles) or proxies (the spheres)")
        ->check(CLI::IsMember({"surface", "proxies"}));
    cli.add_option("--threads", options.threads, "Narrowphase threads (0: the machine's)")
        ->check(CLI::Range(0u, 256u));
    cli.add_option("--stiffness", options.modal.stiffnessScale, "Stiffness scale of every body's modes (ω²)")
        ->check(CLI::Range(1e-4f, 1e4f));
    cli.add_option("--damping", options.modal.dampingScale, "Damping scale of every body's modes")
        ->check(CLI::Range(0.0f, 1e3f));
    cli.add_option("--strain-limit", options.modal.strainLimit,
                   "Largest displacement of a mode, as a fraction of the body's size")
        ->check(CLI::Range(1e-4f, 10.0f));
    cli.add_option("--seed", options.sample.seed, "Random seed of the scenes");
    cli.add_flag("--spheres", options.view.spheres, "Show the BD-Tree spheres of --sphere-level");
    std::string bounds = "spheres";
    cli.add_option("--bounds", bounds,
                   "Bounds of the --spheres view: spheres, boxes (BD-AABB) or distance (the distance hierarchy)")
        ->check(CLI::IsMember({"spheres", "boxes", "distance"}));
    cli.add_option("--sphere-level", options.view.sphereLevel, "Level of the sphere view")
        ->check(CLI::Range(0, 30));
    cli.add_option("--sphere-alpha", options.view.sphereAlpha, "Opacity of the sphere view (1: opaque)")
        ->check(CLI::Range(0.0f, 1.0f));
    cli.add_flag("--no-meshes{false}", options.view.meshes,
                 "Hide the bodies (with --spheres: spheres alone)");
    cli.add_option("--displacement", options.view.displacementRange,
                   "Colour bodies by vertex displacement |Uq|, dark red at this many metres")
        ->check(CLI::Range(1e-4f, 100.0f))
        ->each([&options](const std::string&) { options.view.displacement = true; });
    cli.add_option("--motion", options.view.motionRange,
                   "Colour bodies by each vertex's speed over the last step, dark red at this many m/s")
        ->check(CLI::Range(1e-4f, 1e4f))
        ->each([&options](const std::string&) { options.view.motion = true; });
    cli.add_flag("--proxies", options.view.proxies, "Show the contact proxies in contact");
    cli.add_flag("--contacts", options.view.contacts, "Show the contact points and normals");
    CLI11_PARSE(cli, argc, argv);
    options.sample.basis = basis == "modal" ? bdt::demo::EBasis::Modal : bdt::demo::EBasis::Smooth;
    options.contacts = contactModel == "proxies" ? bdt::EContactModel::Proxies : bdt::EContactModel::Surface;
    const std::map<std::string, bdt::demo::EBoundView> boundViews = {{"spheres", bdt::demo::EBoundView::Spheres},
                                                                      {"boxes", bdt::demo::EBoundView::Boxes},
                                                                      {"distance",
                                                                       bdt::demo::EBoundView::DistanceHierarchy}};
    options.view.boundView = boundViews.at(bounds);
    try
    {
        bdt::demo::App app(options);
        return app.Run();
    }
    catch (const std::exception& error)
    {
        std::fprintf(stderr, "bdt-demo: %s\n", error.what());
        return 1;
    }
}
