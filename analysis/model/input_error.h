#pragma once
// Bad input: one line naming the file and the place in it. The CLI prints what() and
// exits 2.
#include <stdexcept>
#include <string>

namespace lmroof::model {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lmroof::model
