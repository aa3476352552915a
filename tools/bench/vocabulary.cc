// The word lists behind vocabulary_internal.h. Written for this generator; the words are the
// everyday vocabulary of rental listings, so generated text repeats words the way real
// descriptions and reviews do.
#include "tools/bench/vocabulary_internal.h"

namespace quarry::tools::bench {
namespace {

constexpr std::string_view kTextWords[] = {
    "the", "and", "a", "to", "of", "is", "in", "with", "for", "you", "our", "we", "it", "on",
    "are", "from", "has", "room", "apartment", "walk", "minutes", "kitchen", "great", "stay",
    "all", "bed", "at", "your", "very", "place", "close", "space", "house", "city", "bedroom",
    "this", "there", "clean", "beach", "be", "will", "have", "restaurants", "bathroom", "located",
    "location", "area", "living", "guests", "just", "quiet", "station", "access", "shops",
    "comfortable", "center", "view", "new", "floor", "home", "perfect", "two", "park", "located",
    "private", "nice", "enjoy", "also", "large", "full", "fully", "street", "bars", "everything",
    "equipped", "distance", "public", "transport", "metro", "well", "can", "one", "bus", "free",
    "double", "building", "can", "or", "as", "main", "heart", "neighborhood", "lovely", "cozy",
    "beautiful", "spacious", "bright", "modern", "recommend", "host", "helpful", "friendly",
    "would", "again", "definitely", "easy", "check", "time", "good", "really", "everything",
    "was", "were", "had", "us", "my", "they", "her", "his", "made", "feel", "welcome", "highly",
    "amazing", "wonderful", "excellent", "thank", "thanks", "responsive", "communication",
    "arrival", "night", "nights", "week", "weekend", "family", "friends", "couple", "kids",
    "children", "balcony", "terrace", "garden", "pool", "sea", "ocean", "mountain", "river",
    "lake", "old", "town", "historic", "square", "market", "museum", "cafes", "supermarket",
    "airport", "train", "tram", "taxi", "parking", "car", "bike", "bikes", "sofa", "table",
    "chairs", "desk", "window", "windows", "light", "sun", "sunny", "morning", "evening",
    "breakfast", "coffee", "tea", "wine", "dinner", "shower", "towels", "linens", "sheets",
    "hot", "water", "air", "conditioning", "heating", "wifi", "fast", "internet", "tv", "netflix",
    "washing", "machine", "dryer", "dishwasher", "oven", "microwave", "fridge", "stove",
    "cooking", "dining", "open", "plan", "ceilings", "high", "wooden", "floors", "renovated",
    "recently", "design", "decorated", "style", "charming", "traditional", "authentic", "local",
    "neighbours", "safe", "peaceful", "lively", "vibrant", "nightlife", "shopping", "sights",
    "attractions", "tourist", "explore", "discover", "relax", "unwind", "getaway", "retreat",
    "stunning", "breathtaking", "panoramic", "views", "overlooking", "rooftop", "courtyard",
    "patio", "bbq", "grill", "outdoor", "indoor", "fireplace", "king", "queen", "size", "single",
    "beds", "bunk", "crib", "high", "chair", "lift", "elevator", "stairs", "third", "second",
    "first", "ground", "level", "entrance", "separate", "shared", "entire", "studio", "loft",
    "suite", "villa", "cottage", "cabin", "flat", "penthouse", "duplex", "minute", "short",
    "long", "term", "stays", "available", "please", "note", "rules", "smoking", "pets", "allowed",
    "not", "no", "parties", "events", "self", "keypad", "lockbox", "keys", "meet", "greet",
    "happy", "help", "questions", "tips", "guide", "book", "books", "games", "toys", "music",
    "quietly", "noise", "traffic", "busy", "calm", "residential", "safe", "secure", "gated",
    "community", "near", "nearby", "around", "corner", "across", "opposite", "next", "door",
    "steps", "away", "block", "blocks", "km", "meters", "miles", "hour", "drive", "ride", "ferry",
    "harbour", "port", "marina", "boats", "sand", "dunes", "forest", "hiking", "trails", "ski",
    "slopes", "snow", "winter", "summer", "spring", "autumn", "season", "festival", "concerts",
    "theatre", "cinema", "gallery", "cathedral", "church", "castle", "palace", "bridge", "tower",
    "university", "hospital", "office", "business", "travelers", "remote", "work", "workspace",
    "ergonomic", "monitor", "printer", "iron", "hair", "dryer", "essentials", "shampoo", "soap",
    "toiletries", "provided", "included", "extra", "fee", "cleaning", "deposit", "cancellation",
    "flexible", "policy", "instructions", "arrive", "late", "early", "luggage", "storage",
    "drop", "off", "pick", "up", "spotless", "tidy", "immaculate", "cosy", "homely", "warm",
    "cool", "breeze", "fan", "ceiling", "blackout", "curtains", "soundproof", "mattress",
    "pillows", "duvet", "blankets", "wardrobe", "closet", "hangers", "mirror", "bathtub",
    "jacuzzi", "sauna", "gym", "fitness", "tennis", "court", "playground", "lawn", "trees",
    "flowers", "birds", "sunset", "sunrise", "stars", "moon", "lights", "skyline", "landmark",
    "exactly", "described", "pictures", "photos", "accurate", "better", "than", "expected",
    "value", "money", "price", "worth", "every", "penny", "stayed", "loved", "enjoyed",
    "appreciated", "thoughtful", "touches", "snacks", "bottle", "local", "map", "restaurant",
    "suggestions", "recommendations", "went", "above", "beyond", "quick", "reply", "replied",
    "messages", "smooth", "seamless", "process", "would", "return", "absolutely",
    "felt", "right", "home", "minor", "issue", "resolved", "immediately", "small", "only",
    "downside", "bit", "little", "noisy", "tight", "steep", "narrow", "worth", "it"};

constexpr std::string_view kTextPhrases[] = {
    "within walking distance of",
    "a fully equipped kitchen",
    "in the heart of the city",
    "close to public transport",
    "perfect for couples and families",
    "the apartment is located on the",
    "just a few minutes from the beach",
    "highly recommend this place",
    "would definitely stay again",
    "the host was very helpful and responsive",
    "the place was clean and comfortable",
    "everything you need for a comfortable stay",
    "great location and great value",
    "exactly as described in the pictures",
    "check in was easy and smooth",
    "lots of restaurants bars and shops nearby",
    "fast wifi and a dedicated workspace",
    "fresh towels and linens are provided",
    "a short walk to the metro station",
    "quiet neighborhood with easy access to",
    "we had a wonderful stay",
    "thank you for having us",
    "the bed was very comfortable",
    "a beautiful view from the balcony",
    "please note that there is no elevator",
    "free parking on the street",
    "self check in with a keypad",
    "the kitchen has everything you need",
    "air conditioning in every room",
    "ideal for business travelers",
};

constexpr std::string_view kAmenities[] = {
    "Wifi", "Essentials", "Kitchen", "Heating", "Hangers", "Hair dryer", "TV",
    "Smoke detector", "Washer", "Iron", "Shampoo", "Hot water", "Laptop friendly workspace",
    "Air conditioning", "Dishes and silverware", "Refrigerator", "Cooking basics", "Microwave",
    "Bed linens", "Coffee maker", "Stove", "Oven", "Elevator", "Free street parking",
    "Fire extinguisher", "First aid kit", "Carbon monoxide detector", "Cable TV", "Dryer",
    "Extra pillows and blankets", "Long term stays allowed", "Host greets you", "Dishwasher",
    "Family/kid friendly", "Private entrance", "Lock on bedroom door", "Patio or balcony",
    "Self check-in", "Luggage dropoff allowed", "Buzzer/wireless intercom", "Lockbox",
    "Free parking on premises", "Bathtub", "Room-darkening shades", "Garden or backyard",
    "Pets allowed", "Safety card", "Breakfast", "Pool", "Gym", "Hot tub", "BBQ grill",
    "Indoor fireplace", "Crib", "High chair", "Pack 'n Play/travel crib", "Children's books and toys",
    "Beach essentials", "Waterfront", "Beachfront", "Lake access", "Ski-in/Ski-out",
    "Suitable for events", "Smoking allowed", "Wheelchair accessible", "Step-free access",
    "Wide doorway", "Well-lit path to entrance", "Keypad", "Smart lock", "Building staff",
    "24-hour check-in", "Ethernet connection", "Pocket wifi", "Game console", "Baby bath",
    "Changing table", "Outlet covers", "Window guards", "Stair gates", "Fireplace guards",
    "Paid parking off premises", "EV charger", "Sauna", "Rooftop terrace", "Sound system",
};

constexpr std::string_view kPropertyTypes[] = {
    "Apartment", "House", "Condominium", "Serviced apartment", "Loft", "Townhouse",
    "Guest suite", "Bed and breakfast", "Villa", "Guesthouse", "Cottage", "Bungalow", "Cabin",
    "Boutique hotel", "Hostel", "Chalet", "Tiny house", "Earth house", "Boat", "Treehouse",
};

constexpr std::string_view kRoomTypes[] = {"Entire home/apt", "Private room", "Shared room"};
constexpr std::string_view kBedTypes[] = {"Real Bed", "Pull-out Sofa", "Futon", "Couch",
                                          "Airbed"};
constexpr std::string_view kCancellationPolicies[] = {
    "flexible", "moderate", "strict_14_with_grace_period", "super_strict_30",
    "super_strict_60"};

constexpr std::string_view kNameAdjectives[] = {
    "Cozy", "Bright", "Charming", "Spacious", "Modern", "Sunny", "Quiet", "Lovely", "Stylish",
    "Beautiful", "Central", "Elegant", "Rustic", "Luxury", "Peaceful", "Historic", "Chic",
    "Family-friendly", "Renovated", "Cute", "Airy", "Secluded", "Seaside", "Hillside",
};

constexpr std::string_view kFirstNames[] = {
    "Maria", "David", "Anna", "John", "Sofia", "Michael", "Laura", "Daniel", "Elena", "James",
    "Julia", "Carlos", "Sarah", "Luca", "Emma", "Paulo", "Olivia", "Ahmed", "Mei", "Kenji",
    "Fatima", "Lucas", "Chloe", "Mateo", "Hannah", "Ivan", "Nora", "Pedro", "Zoe", "Tomás",
    "Aisha", "Ben", "Clara", "Diego", "Eva", "Felix", "Grace", "Hugo", "Ines", "Jonas",
    "Kim", "Leo", "Mila", "Noah", "Omar", "Pia", "Rosa", "Sam", "Tara", "Yuki",
};

constexpr std::string_view kNeighbourhoods[] = {
    "Old Town", "Harbour", "City Centre", "Riverside", "University Quarter", "Market District",
    "Hillside", "Beachfront", "Arts District", "Chinatown", "Financial District", "Little Italy",
    "Park Slope", "West End", "East Village", "North Shore", "South Bank", "Garden District",
    "Castle Hill", "Station Quarter", "Lakeside", "Cathedral Square", "Docklands", "Uptown",
};

constexpr std::string_view kStreets[] = {
    "Main Street", "Church Street", "High Street", "Park Avenue", "Harbour Road", "Station Road",
    "Market Square", "River Lane", "Mill Street", "Garden Way", "Castle Street", "Bridge Road",
    "Ocean Drive", "Hill Road", "King Street", "Queen Street", "Victoria Road", "Green Lane",
};

constexpr City kCities[] = {
    {"Porto", "Portugal", "PT", 41.1579, -8.6291},
    {"Barcelona", "Spain", "ES", 41.3874, 2.1686},
    {"New York", "United States", "US", 40.7128, -74.0060},
    {"Sydney", "Australia", "AU", -33.8688, 151.2093},
    {"Istanbul", "Turkey", "TR", 41.0082, 28.9784},
    {"Montreal", "Canada", "CA", 45.5019, -73.5674},
    {"Hong Kong", "Hong Kong", "HK", 22.3193, 114.1694},
    {"Rio de Janeiro", "Brazil", "BR", -22.9068, -43.1729},
    {"Honolulu", "United States", "US", 21.3099, -157.8581},
    {"Lisbon", "Portugal", "PT", 38.7223, -9.1393},
    {"Berlin", "Germany", "DE", 52.5200, 13.4050},
    {"Kyoto", "Japan", "JP", 35.0116, 135.7681},
};

}  // namespace

std::span<const std::string_view> TextWords() { return kTextWords; }
std::span<const std::string_view> TextPhrases() { return kTextPhrases; }
std::span<const std::string_view> Amenities() { return kAmenities; }
std::span<const std::string_view> PropertyTypes() { return kPropertyTypes; }
std::span<const std::string_view> RoomTypes() { return kRoomTypes; }
std::span<const std::string_view> BedTypes() { return kBedTypes; }
std::span<const std::string_view> CancellationPolicies() { return kCancellationPolicies; }
std::span<const std::string_view> NameAdjectives() { return kNameAdjectives; }
std::span<const std::string_view> FirstNames() { return kFirstNames; }
std::span<const std::string_view> Neighbourhoods() { return kNeighbourhoods; }
std::span<const std::string_view> Streets() { return kStreets; }
std::span<const City> Cities() { return kCities; }

}  // namespace quarry::tools::bench
