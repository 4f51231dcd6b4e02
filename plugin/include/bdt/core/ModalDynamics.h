// Moved to <bdt/core/dynamics/ModalDynamics.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/dynamics/ModalDynamics.h>
