// Words too common to search for, per language: lists of function words (articles, pronouns,
// auxiliaries, prepositions, conjunctions) written for Quarry, sorted by bytes for binary search.
// Each list must stay sorted by bytes (each has a static_assert).
#include "text/stop_words.h"

#include <algorithm>
#include <array>

namespace quarry::text {
namespace {

constexpr auto kEnglish = std::to_array<std::string_view>({
    "a",          "about",     "above",      "after",   "again",   "against",   "all",
    "am",         "an",        "and",        "any",     "are",     "aren't",    "as",
    "at",         "be",        "because",    "been",    "before",  "being",     "below",
    "between",    "both",      "but",        "by",      "can",     "can't",     "cannot",
    "could",      "couldn't",  "did",        "didn't",  "do",      "does",      "doesn't",
    "doing",      "don't",     "down",       "during",  "each",    "few",       "for",
    "from",       "further",   "had",        "hadn't",  "has",     "hasn't",    "have",
    "haven't",    "having",    "he",         "he'd",    "he'll",   "he's",      "her",
    "here",       "here's",    "hers",       "herself", "him",     "himself",   "his",
    "how",        "how's",     "i",          "i'd",     "i'll",    "i'm",       "i've",
    "if",         "in",        "into",       "is",      "isn't",   "it",        "it's",
    "its",        "itself",    "let's",      "me",      "more",    "most",      "mustn't",
    "my",         "myself",    "no",         "nor",     "not",     "of",        "off",
    "on",         "once",      "only",       "or",      "other",   "ought",     "our",
    "ours",       "ourselves", "out",        "over",    "own",     "same",      "shan't",
    "she",        "she'd",     "she'll",     "she's",   "should",  "shouldn't", "so",
    "some",       "such",      "than",       "that",    "that's",  "the",       "their",
    "theirs",     "them",      "themselves", "then",    "there",   "there's",   "these",
    "they",       "they'd",    "they'll",    "they're", "they've", "this",      "those",
    "through",    "to",        "too",        "under",   "until",   "up",        "very",
    "was",        "wasn't",    "we",         "we'd",    "we'll",   "we're",     "we've",
    "were",       "weren't",   "what",       "what's",  "when",    "when's",    "where",
    "where's",    "which",     "while",      "who",     "who's",   "whom",      "why",
    "why's",      "will",      "with",       "won't",   "would",   "wouldn't",  "you",
    "you'd",      "you'll",    "you're",     "you've",  "your",    "yours",     "yourself",
    "yourselves",
});
static_assert(std::ranges::is_sorted(kEnglish));

constexpr auto kSpanish = std::to_array<std::string_view>({
    "a",       "al",       "algo",     "algunas", "algunos",  "ante",    "antes",    "como",
    "con",     "contra",   "cual",     "cuando",  "de",       "del",     "desde",    "donde",
    "durante", "e",        "el",       "ella",    "ellas",    "ellos",   "en",       "entre",
    "era",     "erais",    "eran",     "eras",    "eres",     "es",      "esa",      "esas",
    "ese",     "eso",      "esos",     "esta",    "estaba",   "estaban", "estado",   "estamos",
    "estar",   "estas",    "este",     "esto",    "estos",    "estoy",   "está",     "están",
    "fue",     "fueron",   "fui",      "fuimos",  "ha",       "haber",   "habéis",   "había",
    "habían",  "han",      "has",      "hasta",   "hay",      "he",      "hemos",    "la",
    "las",     "le",       "les",      "lo",      "los",      "me",      "mi",       "mis",
    "mucho",   "muchos",   "muy",      "más",     "mí",       "nada",    "ni",       "no",
    "nos",     "nosotras", "nosotros", "nuestra", "nuestras", "nuestro", "nuestros", "o",
    "os",      "otra",     "otras",    "otro",    "otros",    "para",    "pero",     "poco",
    "por",     "porque",   "que",      "quien",   "quienes",  "quién",   "qué",      "se",
    "sea",     "sean",     "ser",      "si",      "siendo",   "sin",     "sobre",    "sois",
    "somos",   "son",      "soy",      "su",      "sus",      "suya",    "suyas",    "suyo",
    "suyos",   "sí",       "también",  "tanto",   "te",       "tenemos", "tener",    "tengo",
    "ti",      "tiene",    "tienen",   "todo",    "todos",    "tu",      "tus",      "tuya",
    "tuyo",    "tú",       "un",       "una",     "uno",      "unos",    "vosotras", "vosotros",
    "vuestra", "vuestro",  "y",        "ya",      "yo",       "él",
});
static_assert(std::ranges::is_sorted(kSpanish));

constexpr auto kFrench = std::to_array<std::string_view>({
    "a",       "ai",       "aie",    "aient",  "as",     "au",      "aura",   "aurai",   "auraient",
    "aurais",  "aurait",   "auras",  "aurez",  "auriez", "aurions", "aurons", "auront",  "aux",
    "avaient", "avais",    "avait",  "avec",   "avez",   "aviez",   "avions", "avoir",   "avons",
    "ayant",   "ayez",     "ayons",  "c",      "ce",     "ceci",    "cela",   "ces",     "cet",
    "cette",   "d",        "dans",   "de",     "des",    "du",      "elle",   "elles",   "en",
    "es",      "est",      "et",     "eu",     "eue",    "eues",    "eurent", "eus",     "eut",
    "eux",     "furent",   "fus",    "fut",    "il",     "ils",     "j",      "je",      "l",
    "la",      "le",       "les",    "leur",   "leurs",  "lui",     "m",      "ma",      "mais",
    "me",      "mes",      "moi",    "mon",    "même",   "n",       "ne",     "nos",     "notre",
    "nous",    "on",       "ont",    "ou",     "où",     "par",     "pas",    "pour",    "qu",
    "que",     "quel",     "quelle", "qui",    "s",      "sa",      "sans",   "se",      "sera",
    "serai",   "seraient", "serais", "serait", "seras",  "serez",   "seriez", "serions", "serons",
    "seront",  "ses",      "soi",    "soient", "sois",   "soit",    "sommes", "son",     "sont",
    "soyez",   "soyons",   "suis",   "sur",    "t",      "ta",      "te",     "tes",     "toi",
    "ton",     "tu",       "un",     "une",    "vos",    "votre",   "vous",   "y",       "à",
    "étaient", "étais",    "était",  "étant",  "étiez",  "étions",  "été",    "êtes",    "être",
});
static_assert(std::ranges::is_sorted(kFrench));

constexpr auto kGerman = std::to_array<std::string_view>({
    "aber",     "alle",      "allem",     "allen",    "aller",   "alles",    "als",     "also",
    "am",       "an",        "ander",     "andere",   "anderem", "anderen",  "anderer", "anderes",
    "anders",   "auch",      "auf",       "aus",      "bei",     "bin",      "bis",     "bist",
    "da",       "damit",     "dann",      "das",      "dass",    "dasselbe", "dazu",    "dein",
    "deine",    "deinem",    "deinen",    "deiner",   "dem",     "den",      "denn",    "der",
    "derer",    "des",       "desselben", "dessen",   "dich",    "die",      "dies",    "diese",
    "dieselbe", "dieselben", "diesem",    "diesen",   "dieser",  "dieses",   "dir",     "doch",
    "dort",     "du",        "durch",     "ein",      "eine",    "einem",    "einen",   "einer",
    "eines",    "einig",     "einige",    "einigem",  "einigen", "einiger",  "einiges", "er",
    "es",       "etwas",     "euch",      "euer",     "eure",    "eurem",    "euren",   "eurer",
    "für",      "gegen",     "gewesen",   "hab",      "habe",    "haben",    "hat",     "hatte",
    "hatten",   "hier",      "hin",       "hinter",   "ich",     "ihm",      "ihn",     "ihnen",
    "ihr",      "ihre",      "ihrem",     "ihren",    "ihrer",   "ihres",    "im",      "in",
    "indem",    "ins",       "ist",       "jede",     "jedem",   "jeden",    "jeder",   "jedes",
    "jene",     "jenem",     "jenen",     "jener",    "jenes",   "jetzt",    "kann",    "kein",
    "keine",    "keinem",    "keinen",    "keiner",   "keines",  "können",   "könnte",  "man",
    "manche",   "manchem",   "manchen",   "mancher",  "manches", "mein",     "meine",   "meinem",
    "meinen",   "meiner",    "meines",    "mich",     "mir",     "mit",      "muss",    "musste",
    "nach",     "nicht",     "nichts",    "noch",     "nun",     "nur",      "ob",      "oder",
    "ohne",     "sehr",      "sein",      "seine",    "seinem",  "seinen",   "seiner",  "seines",
    "selbst",   "sich",      "sie",       "sind",     "so",      "solche",   "solchem", "solchen",
    "solcher",  "solches",   "soll",      "sollte",   "sondern", "sonst",    "um",      "und",
    "uns",      "unser",     "unsere",    "unserem",  "unseren", "unserer",  "unseres", "unter",
    "viel",     "vom",       "von",       "vor",      "war",     "waren",    "warst",   "was",
    "weg",      "weil",      "weiter",    "welche",   "welchem", "welchen",  "welcher", "welches",
    "wenn",     "werde",     "werden",    "wie",      "wieder",  "will",     "wir",     "wird",
    "wirst",    "wo",        "wollen",    "wollte",   "während", "würde",    "würden",  "zu",
    "zum",      "zur",       "zwar",      "zwischen", "über",
});
static_assert(std::ranges::is_sorted(kGerman));

constexpr auto kItalian = std::to_array<std::string_view>({
    "a",      "ad",     "agli",    "ai",     "al",     "alla",   "alle",   "allo",   "anche",
    "avere",  "aveva",  "avevano", "c",      "che",    "chi",    "ci",     "come",   "con",
    "contro", "cui",    "da",      "dagli",  "dai",    "dal",    "dalla",  "dalle",  "dallo",
    "degli",  "dei",    "del",     "dell",   "della",  "delle",  "dello",  "di",     "dov",
    "dove",   "e",      "ed",      "era",    "erano",  "essere", "gli",    "ha",     "hanno",
    "ho",     "i",      "il",      "in",     "io",     "la",     "le",     "lei",    "li",
    "lo",     "loro",   "lui",     "ma",     "me",     "mi",     "mia",    "mie",    "miei",
    "mio",    "ne",     "negli",   "nei",    "nel",    "nella",  "nelle",  "nello",  "noi",
    "non",    "nostra", "nostre",  "nostri", "nostro", "o",      "per",    "perché", "più",
    "quale",  "quando", "quella",  "quelle", "quelli", "quello", "questa", "queste", "questi",
    "questo", "se",     "sei",     "si",     "sia",    "siamo",  "siete",  "sono",   "su",
    "sua",    "sue",    "sugli",   "sui",    "sul",    "sulla",  "sulle",  "sullo",  "suo",
    "suoi",   "ti",     "tra",     "tu",     "tua",    "tue",    "tuo",    "tuoi",   "tutti",
    "tutto",  "un",     "una",     "uno",    "vi",     "voi",    "vostra", "vostre", "vostri",
    "vostro", "è",
});
static_assert(std::ranges::is_sorted(kItalian));

constexpr auto kPortuguese = std::to_array<std::string_view>({
    "a",     "ao",     "aos",     "aquela", "aquelas", "aquele", "aqueles", "aquilo", "as",
    "até",   "com",    "como",    "da",     "das",     "de",     "dela",    "delas",  "dele",
    "deles", "depois", "do",      "dos",    "e",       "ela",    "elas",    "ele",    "eles",
    "em",    "entre",  "era",     "eram",   "essa",    "essas",  "esse",    "esses",  "esta",
    "estas", "estava", "estavam", "este",   "estes",   "está",   "estão",   "eu",     "foi",
    "fomos", "for",    "foram",   "há",     "isso",    "isto",   "já",      "lhe",    "lhes",
    "mais",  "mas",    "me",      "mesmo",  "meu",     "meus",   "minha",   "minhas", "muito",
    "na",    "nas",    "nem",     "no",     "nos",     "nossa",  "nossas",  "nosso",  "nossos",
    "num",   "numa",   "não",     "nós",    "o",       "os",     "ou",      "para",   "pela",
    "pelas", "pelo",   "pelos",   "por",    "qual",    "quando", "que",     "quem",   "se",
    "seja",  "sem",    "ser",     "seu",    "seus",    "sua",    "suas",    "só",     "também",
    "te",    "tem",    "teu",     "teus",   "tu",      "tua",    "tuas",    "têm",    "um",
    "uma",   "você",   "vocês",   "vos",    "à",       "às",     "é",
});
static_assert(std::ranges::is_sorted(kPortuguese));

constexpr auto kDutch = std::to_array<std::string_view>({
    "aan",    "al",    "alles", "als",  "altijd", "andere", "ben",     "bij",    "daar",   "dan",
    "dat",    "de",    "der",   "deze", "die",    "dit",    "doch",    "doen",   "door",   "dus",
    "een",    "eens",  "en",    "er",   "ge",     "geen",   "geweest", "haar",   "had",    "heb",
    "hebben", "heeft", "hem",   "het",  "hier",   "hij",    "hoe",     "hun",    "iemand", "iets",
    "ik",     "in",    "is",    "ja",   "je",     "kan",    "kon",     "kunnen", "maar",   "me",
    "meer",   "men",   "met",   "mij",  "mijn",   "moet",   "na",      "naar",   "niet",   "niets",
    "nog",    "nu",    "of",    "om",   "omdat",  "ons",    "ook",     "op",     "over",   "reeds",
    "te",     "tegen", "toch",  "toen", "tot",    "u",      "uit",     "uw",     "van",    "veel",
    "voor",   "want",  "waren", "was",  "wat",    "werd",   "wezen",   "wie",    "wil",    "worden",
    "wordt",  "zal",   "ze",    "zelf", "zich",   "zij",    "zijn",    "zo",     "zonder", "zou",
});
static_assert(std::ranges::is_sorted(kDutch));

constexpr auto kDanish = std::to_array<std::string_view>({
    "af",    "alle",  "andet", "andre", "at",    "blev", "blive", "bliver", "da",     "de",
    "dem",   "den",   "denne", "der",   "deres", "det",  "dette", "dig",    "din",    "disse",
    "dog",   "du",    "efter", "eller", "en",    "end",  "er",    "et",     "for",    "fra",
    "ham",   "han",   "hans",  "har",   "havde", "have", "hende", "hendes", "her",    "hos",
    "hun",   "hvad",  "hvis",  "hvor",  "i",     "ikke", "ind",   "jeg",    "jer",    "jo",
    "kunne", "man",   "mange", "med",   "meget", "men",  "mig",   "min",    "mine",   "mit",
    "mod",   "ned",   "noget", "nogle", "nu",    "når",  "og",    "også",   "om",     "op",
    "os",    "over",  "på",    "sig",   "sin",   "sine", "sit",   "skal",   "skulle", "som",
    "sådan", "thi",   "til",   "ud",    "under", "var",  "vi",    "vil",    "ville",  "vor",
    "være",  "været",
});
static_assert(std::ranges::is_sorted(kDanish));

constexpr auto kNorwegian = std::to_array<std::string_view>({
    "alle",    "at",    "av",     "bare",    "blei",    "bli",    "blir",  "da",    "de",
    "deg",     "dei",   "deim",   "deira",   "deires",  "dem",    "den",   "denne", "der",
    "dere",    "deres", "det",    "dette",   "di",      "din",    "disse", "ditt",  "du",
    "dykk",    "eg",    "ein",    "eit",     "eitt",    "eller",  "elles", "en",    "er",
    "et",      "ett",   "etter",  "for",     "fordi",   "fra",    "før",   "ha",    "hadde",
    "han",     "hans",  "har",    "hennar",  "henne",   "hennes", "her",   "hjå",   "ho",
    "hoe",     "honom", "hoss",   "hossen",  "hun",     "hva",    "hvem",  "hver",  "hvilke",
    "hvilken", "hvis",  "hvor",   "hvordan", "hvorfor", "i",      "ikke",  "ikkje", "ingen",
    "ingi",    "inkje", "inn",    "inni",    "ja",      "jeg",    "kan",   "kom",   "korleis",
    "kva",     "kvar",  "kven",   "kvi",     "kvifor",  "man",    "mange", "me",    "med",
    "meg",     "meget", "mellom", "men",     "mi",      "min",    "mine",  "mitt",  "mot",
    "mykje",   "ned",   "no",     "noe",     "noen",    "noka",   "noko",  "nokon", "nokor",
    "nokre",   "nå",    "når",    "og",      "også",    "om",     "opp",   "oss",   "over",
    "på",      "samme", "seg",    "selv",    "si",      "sia",    "sidan", "siden", "sin",
    "sine",    "sitt",  "sjøl",   "skal",    "skulle",  "slik",   "so",    "som",   "somme",
    "somt",    "så",    "sånn",   "til",     "um",      "upp",    "ut",    "uten",  "var",
    "vart",    "varte", "ved",    "vere",    "verte",   "vi",     "vil",   "ville", "vore",
    "vors",    "vort",  "være",   "vært",
});
static_assert(std::ranges::is_sorted(kNorwegian));

constexpr auto kSwedish = std::to_array<std::string_view>({
    "alla",   "allt",   "att",   "av",     "blev",   "bli",    "blir",   "blivit", "de",    "dem",
    "den",    "denna",  "deras", "dess",   "dessa",  "det",    "detta",  "dig",    "din",   "dina",
    "ditt",   "du",     "där",   "då",     "efter",  "ej",     "eller",  "en",     "er",    "era",
    "ert",    "ett",    "från",  "för",    "ha",     "hade",   "han",    "hans",   "har",   "henne",
    "hennes", "hon",    "honom", "hur",    "här",    "i",      "icke",   "ingen",  "inom",  "inte",
    "jag",    "ju",     "kan",   "kunde",  "man",    "med",    "mellan", "men",    "mig",   "min",
    "mina",   "mitt",   "mot",   "mycket", "ni",     "nu",     "när",    "någon",  "något", "några",
    "och",    "om",     "oss",   "på",     "samma",  "sedan",  "sig",    "sin",    "sina",  "sitta",
    "själv",  "skulle", "som",   "så",     "sådan",  "sådana", "sådant", "till",   "under", "upp",
    "ut",     "utan",   "vad",   "var",    "vara",   "varför", "varit",  "varje",  "vars",  "vart",
    "vem",    "vi",     "vid",   "vilka",  "vilkas", "vilken", "vilket", "vår",    "våra",  "vårt",
    "än",     "är",     "åt",    "över",
});
static_assert(std::ranges::is_sorted(kSwedish));

constexpr auto kFinnish = std::to_array<std::string_view>({
    "ei",      "eivät",  "emme",    "en",      "et",      "ette",    "että",    "he",
    "heidän",  "heidät", "heihin",  "heille",  "heillä",  "heiltä",  "heissä",  "heistä",
    "heitä",   "hän",    "häneen",  "hänelle", "hänellä", "häneltä", "hänen",   "hänessä",
    "hänestä", "hänet",  "häntä",   "ja",      "joka",    "jolla",   "jolle",   "jonka",
    "jos",     "jota",   "jotka",   "kanssa",  "keiden",  "ketkä",   "kuka",    "kun",
    "me",      "meidän", "meille",  "meillä",  "meiltä",  "meissä",  "meistä",  "meitä",
    "mikä",    "minua",  "minulla", "minulle", "minulta", "minun",   "minussa", "minusta",
    "minä",    "mitä",   "mutta",   "ne",      "niiden",  "niin",    "niitä",   "nuo",
    "nyt",     "näiden", "nämä",    "ole",     "olemme",  "olen",    "olet",    "olette",
    "oli",     "olimme", "olin",    "olisi",   "olit",    "olitte",  "olivat",  "olla",
    "olleet",  "ollut",  "on",      "ovat",    "se",      "sekä",    "sen",     "siihen",
    "siinä",   "siitä",  "sille",   "sillä",   "siltä",   "sinua",   "sinulla", "sinulle",
    "sinulta", "sinun",  "sinussa", "sinusta", "sinä",    "sitä",    "te",      "teidän",
    "teille",  "teillä", "teiltä",  "teissä",  "teistä",  "teitä",   "tuo",     "tuon",
    "tämä",    "tämän",  "vaan",    "vai",     "vaikka",
});
static_assert(std::ranges::is_sorted(kFinnish));

constexpr auto kHungarian = std::to_array<std::string_view>({
    "a",      "abban",   "ahhoz",   "ahogy",   "ahol",   "aki",     "akik",      "akkor",
    "alatt",  "amely",   "amelyek", "amelyet", "ami",    "amikor",  "amit",      "amíg",
    "az",     "azok",    "azon",    "azt",     "azután", "azzal",   "be",        "bár",
    "csak",   "de",      "e",       "egy",     "egyes",  "egyik",   "együtt",    "el",
    "ellen",  "elég",    "elő",     "először", "előtt",  "ez",      "ezek",      "ezen",
    "ezt",    "ezzel",   "fel",     "felé",    "hanem",  "hogy",    "hol",       "ide",
    "igen",   "ill",     "is",      "itt",     "ja",     "kell",    "keresztül", "ki",
    "kívül",  "között",  "közül",   "le",      "legyen", "lehet",   "lenne",     "lesz",
    "lett",   "maga",    "magát",   "majd",    "meg",    "mellett", "mely",      "melyek",
    "mert",   "mi",      "mikor",   "milyen",  "minden", "mint",    "mintha",    "mit",
    "mivel",  "most",    "már",     "más",     "nagyon", "ne",      "nekem",     "neki",
    "nem",    "nincs",   "néha",    "olyan",   "ott",    "pedig",   "s",         "saját",
    "se",     "sem",     "semmi",   "sok",     "sokat",  "sokkal",  "szemben",   "szerint",
    "szinte", "számára", "talán",   "tehát",   "tovább", "továbbá", "több",      "ugyanis",
    "után",   "utána",   "vagy",    "vagyis",  "vagyok", "valaki",  "valami",    "valamint",
    "való",   "van",     "vannak",  "vele",    "vissza", "viszont", "volna",     "volt",
    "voltak", "voltam",  "voltunk", "így",     "úgy",
});
static_assert(std::ranges::is_sorted(kHungarian));

constexpr auto kRomanian = std::to_array<std::string_view>({
    "a",       "acea",   "aceasta", "această", "aceea",  "acei",    "aceia",   "acel",    "acela",
    "acele",   "acelea", "acest",   "acesta",  "aceste", "acestea", "acestei", "acestia", "acestui",
    "acolo",   "acum",   "ai",      "aia",     "aici",   "al",      "ale",     "alt",     "alta",
    "altceva", "alte",   "altfel",  "altii",   "altul",  "am",      "anume",   "apoi",    "ar",
    "are",     "as",     "asa",     "asta",    "astazi", "astfel",  "asupra",  "atare",   "atat",
    "atunci",  "au",     "avea",    "avem",    "avut",   "azi",     "ba",      "bine",    "ca",
    "cam",     "care",   "ce",      "cea",     "cei",    "cel",     "cele",    "celor",   "ceva",
    "chiar",   "ci",     "cind",    "cine",    "cineva", "cit",     "cite",    "cu",      "cum",
    "că",      "da",     "dacă",    "dar",     "de",     "deci",    "deja",    "desi",    "despre",
    "din",     "dintr",  "dintre",  "doar",    "după",   "ea",      "ei",      "el",      "ele",
    "era",     "este",   "eu",      "fara",    "fi",     "fie",     "fiecare", "fiind",   "foarte",
    "fost",    "i",      "ia",      "iar",     "ii",     "il",      "imi",     "in",      "intre",
    "isi",     "la",     "le",      "li",      "lor",    "lui",     "m",       "ma",      "mai",
    "mea",     "mei",    "mele",    "mereu",   "meu",    "mi",      "mie",     "mine",    "mult",
    "multe",   "multi",  "ne",      "nici",    "nimic",  "noi",     "nostru",  "nu",      "o",
    "oricare", "pe",     "pentru",  "peste",   "pina",   "poate",   "pot",     "prea",    "prin",
    "sa",      "sau",    "se",      "si",      "sint",   "sunt",    "suntem",  "sunteti", "să",
    "ta",      "tale",   "te",      "ti",      "toata",  "toate",   "tot",     "toti",    "tu",
    "tuturor", "un",     "una",     "unde",    "unei",   "unele",   "uneori",  "unii",    "unor",
    "unui",    "unul",   "va",      "vi",      "voi",    "vom",     "vor",     "îi",      "îl",
    "în",      "între",  "și",
});
static_assert(std::ranges::is_sorted(kRomanian));

constexpr auto kRussian = std::to_array<std::string_view>({
    "а",       "без",     "более",   "больше", "будет",  "будто", "бы",      "был",   "была",
    "были",    "было",    "быть",    "в",      "вам",    "вас",   "вдруг",   "ведь",  "во",
    "вот",     "впрочем", "все",     "всегда", "всего",  "всех",  "всю",     "вы",    "где",
    "да",      "даже",    "для",     "до",     "другой", "его",   "ее",      "ей",    "ему",
    "если",    "есть",    "еще",     "ж",      "же",     "за",    "зачем",   "здесь", "и",
    "из",      "или",     "им",      "иногда", "их",     "к",     "кажется", "как",   "какая",
    "какой",   "когда",   "конечно", "кто",    "куда",   "ли",    "между",   "меня",  "мне",
    "много",   "может",   "можно",   "мой",    "моя",    "мы",    "на",      "над",   "надо",
    "наконец", "нас",     "не",      "него",   "нее",    "ней",   "нельзя",  "нет",   "ни",
    "нибудь",  "никогда", "ним",     "них",    "ничего", "но",    "ну",      "о",     "об",
    "один",    "он",      "она",     "они",    "опять",  "от",    "перед",   "по",    "под",
    "после",   "потом",   "потому",  "почти",  "при",    "про",   "раз",     "разве", "с",
    "сам",     "свою",    "себе",    "себя",   "сейчас", "со",    "совсем",  "так",   "такой",
    "там",     "тебя",    "тем",     "теперь", "то",     "тогда", "того",    "тоже",  "только",
    "том",     "тот",     "тут",     "ты",     "у",      "уж",    "уже",     "хоть",  "чего",
    "чем",     "через",   "что",     "чтоб",   "чтобы",  "чуть",  "эти",     "этого", "этой",
    "этом",    "этот",    "эту",     "я",
});
static_assert(std::ranges::is_sorted(kRussian));

constexpr auto kTurkish = std::to_array<std::string_view>({
    "acaba", "ama",    "aslında", "az",    "bazı",  "belki", "biri",  "birkaç", "birşey",
    "biz",   "bu",     "da",      "daha",  "de",    "defa",  "diye",  "en",     "eğer",
    "gibi",  "hem",    "hep",     "hepsi", "her",   "hiç",   "ile",   "ise",    "için",
    "kez",   "ki",     "kim",     "mu",    "mü",    "mı",    "nasıl", "ne",     "neden",
    "nerde", "nerede", "nereye",  "niye",  "niçin", "o",     "sanki", "siz",    "tüm",
    "ve",    "veya",   "ya",      "yani",  "çok",   "çünkü", "şey",   "şu",
});
static_assert(std::ranges::is_sorted(kTurkish));

template <std::size_t N>
bool Contains(const std::array<std::string_view, N>& words, std::string_view word) {
  return std::ranges::binary_search(words, word);
}

}  // namespace

bool IsEnglishStopWord(std::string_view lowered_word) { return Contains(kEnglish, lowered_word); }
bool IsSpanishStopWord(std::string_view lowered_word) { return Contains(kSpanish, lowered_word); }
bool IsFrenchStopWord(std::string_view lowered_word) { return Contains(kFrench, lowered_word); }
bool IsGermanStopWord(std::string_view lowered_word) { return Contains(kGerman, lowered_word); }
bool IsItalianStopWord(std::string_view lowered_word) { return Contains(kItalian, lowered_word); }
bool IsPortugueseStopWord(std::string_view lowered_word) {
  return Contains(kPortuguese, lowered_word);
}
bool IsDutchStopWord(std::string_view lowered_word) { return Contains(kDutch, lowered_word); }
bool IsDanishStopWord(std::string_view lowered_word) { return Contains(kDanish, lowered_word); }
bool IsNorwegianStopWord(std::string_view lowered_word) {
  return Contains(kNorwegian, lowered_word);
}
bool IsSwedishStopWord(std::string_view lowered_word) { return Contains(kSwedish, lowered_word); }
bool IsFinnishStopWord(std::string_view lowered_word) { return Contains(kFinnish, lowered_word); }
bool IsHungarianStopWord(std::string_view lowered_word) {
  return Contains(kHungarian, lowered_word);
}
bool IsRomanianStopWord(std::string_view lowered_word) { return Contains(kRomanian, lowered_word); }
bool IsRussianStopWord(std::string_view lowered_word) { return Contains(kRussian, lowered_word); }
bool IsTurkishStopWord(std::string_view lowered_word) { return Contains(kTurkish, lowered_word); }

}  // namespace quarry::text
