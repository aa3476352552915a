// A user's name: the user and the database it is defined on, as mongod's UserName.
#pragma once

#include <string>

namespace quarry::commands {

struct UserName {
  std::string user;
  std::string db;
  bool operator==(const UserName&) const = default;
  // "user@db", as mongod shows a user.
  std::string FullName() const { return user + "@" + db; }
};

}  // namespace quarry::commands
