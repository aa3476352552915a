#include "text/plural_stemmers.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "text/utf16.h"

namespace quarry::text {
namespace {

bool IsVowel(char16_t c) { return c == u'a' || c == u'e' || c == u'i' || c == u'o' || c == u'u'; }

// Words whose plural is their singular, unaccented: Lucene's list, which a plural ending would
// otherwise cut.
constexpr std::u16string_view kSpanishInvariants[] = {
    u"abrebotellas",  u"abrecartas",    u"abrelatas",     u"afueras",     u"albatros",
    u"albricias",     u"aledaños",      u"alexis",        u"aries",       u"alicates",
    u"analisis",      u"andurriales",   u"antitesis",     u"añicos",      u"apendicitis",
    u"apocalipsis",   u"arcoiris",      u"bilis",         u"boletus",     u"boris",
    u"brindis",       u"cactus",        u"canutas",       u"caries",      u"cascanueces",
    u"cascarrabias",  u"ciempies",      u"cifosis",       u"cortaplumas", u"corpus",
    u"cosmos",        u"cosquillas",    u"creces",        u"crisis",      u"cuatrocientas",
    u"cuatrocientos", u"cuelgacapas",   u"cuentacuentos", u"cuentapasos", u"cumpleaños",
    u"doscientas",    u"doscientos",    u"dosis",         u"enseres",     u"entonces",
    u"esponsales",    u"estatus",       u"exequias",      u"fauces",      u"forceps",
    u"fotosintesis",  u"gafas",         u"gafotas",       u"gargaras",    u"gris",
    u"honorarios",    u"ictus",         u"jueves",        u"lapsus",      u"lavacoches",
    u"lavaplatos",    u"limpiabotas",   u"lunes",         u"maitines",    u"martes",
    u"mondadientes",  u"novecientas",   u"novecientos",   u"nupcias",     u"ochocientas",
    u"ochocientos",   u"pais",          u"paris",         u"parabrisas",  u"paracaidas",
    u"parachoques",   u"paraguas",      u"pararrayos",    u"pisapapeles", u"piscis",
    u"portaaviones",  u"portamaletas",  u"portamantas",   u"quinientas",  u"quinientos",
    u"quitamanchas",  u"recogepelotas", u"rictus",        u"rompeolas",   u"sacacorchos",
    u"sacapuntas",    u"saltamontes",   u"salvavidas",    u"seis",        u"seiscientas",
    u"seiscientos",   u"setecientas",   u"setecientos",   u"sintesis",    u"tenis",
    u"tifus",         u"trabalenguas",  u"vacaciones",    u"venus",       u"versus",
    u"viacrucis",     u"virus",         u"viveres",       u"volandas"};

// Plurals that only lose their last two letters.
constexpr std::u16string_view kSpanishTwoLetterPlurals[] = {
    u"yoes",    u"noes",       u"sies",    u"clubes", u"faralaes",     u"albalaes", u"itemes",
    u"albumes", u"sandwiches", u"relojes", u"bojes",  u"contrarreloj", u"carcajes"};

template <std::size_t N>
bool HoldsIgnoringCase(const std::u16string_view (&words)[N], const std::u16string& word) {
  std::u16string lower = word;
  for (char16_t& c : lower) c = static_cast<char16_t>(u_tolower(c));
  return std::find(std::begin(words), std::end(words), std::u16string_view(lower)) !=
         std::end(words);
}

char16_t WithoutAccent(char16_t c) {
  switch (c) {
    case u'à':
    case u'á':
    case u'â':
    case u'ä':
      return u'a';
    case u'ò':
    case u'ó':
    case u'ô':
    case u'ö':
      return u'o';
    case u'è':
    case u'é':
    case u'ê':
    case u'ë':
      return u'e';
    case u'ù':
    case u'ú':
    case u'û':
    case u'ü':
      return u'u';
    case u'ì':
    case u'í':
    case u'î':
    case u'ï':
      return u'i';
    default:
      return c;
  }
}

// How many units of the unaccented plural `s` its singular keeps (it may change `s`'s last
// units too).
std::size_t SpanishSingularLength(std::u16string& s) {
  const std::size_t n = s.size();
  if (HoldsIgnoringCase(kSpanishInvariants, s)) return n;
  if (HoldsIgnoringCase(kSpanishTwoLetterPlurals, s)) return n - 2;
  if (s[n - 1] != u's') return n;
  const char16_t last = s[n - 2], before = s[n - 3], third = s[n - 4];
  if (!IsVowel(last)) return n - 1;  // a consonant before the s: "robots"
  // After a q, or gu before the e or i, only the s goes: maniquis, parques.
  if (third == u'q' || (third == u'g' && before == u'u' && (last == u'i' || last == u'e'))) {
    return n - 1;
  }
  if (IsVowel(third) && before == u'r' && last == u'e') return n - 2;  // amores
  if (IsVowel(third) && (before == u'd' || before == u'l' || before == u'n' || before == u'x') &&
      last == u'e') {
    return n - 2;  // abades, comerciales, faxes
  }
  if ((before == u'y' || before == u'u') && last == u'e') return n - 2;  // leyes, bambues
  if ((third == u'u' || third == u'l' || third == u'r' || third == u't' || third == u'n') &&
      before == u'i' && last == u'e') {
    return n - 2;  // jabalies
  }
  if (before == u's' && last == u'e') return n - 2;  // reses
  if ((IsVowel(before) || before == u'd') && last == u'i') {
    s[n - 2] = u'y';  // jerseis -> jersey, brandis -> brandy
    return n - 1;
  }
  if (before == u'c' && last == u'e') {
    s[n - 3] = u'z';  // voces -> voz
    return n - 2;
  }
  return n - 1;  // casas, coches
}

}  // namespace

std::string EnglishMinimalStem(std::string_view word) {
  std::u16string s = ToUtf16(word);
  const std::size_t n = s.size();
  if (n < 3 || s[n - 1] != u's') return std::string(word);
  switch (s[n - 2]) {
    case u'u':
    case u's':
      return std::string(word);
    case u'e':
      if (n > 3 && s[n - 3] == u'i' && s[n - 4] != u'a' && s[n - 4] != u'e') {
        s[n - 3] = u'y';  // ponies -> pony
        s.resize(n - 2);
        return FromUtf16(s);
      }
      if (s[n - 3] == u'i' || s[n - 3] == u'a' || s[n - 3] == u'o' || s[n - 3] == u'e') {
        return std::string(word);
      }
      break;
    default:
      break;
  }
  s.resize(n - 1);
  return FromUtf16(s);
}

std::string SpanishPluralStem(std::string_view word) {
  std::u16string s = ToUtf16(word);
  if (s.size() < 4) return std::string(word);  // a plural has four letters at least
  for (char16_t& c : s) c = WithoutAccent(c);
  s.resize(SpanishSingularLength(s));
  return FromUtf16(s);
}

}  // namespace quarry::text
