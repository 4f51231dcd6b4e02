// Moved to <bdt/core/bounds/SphereUpdate.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/bounds/SphereUpdate.h>
