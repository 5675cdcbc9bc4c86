// expect: URIError
decodeURIComponent('%');
