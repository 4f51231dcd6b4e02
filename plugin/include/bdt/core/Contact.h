// Moved to <bdt/core/geometry/Contact.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/geometry/Contact.h>
