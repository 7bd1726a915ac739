/**
 * /favicon.ico: a 32×32 jar (green square, white jar, yellow lid), one PNG inside an ICO
 * container. Kept in the source as base64 so it needs no file next to dist/.
 */
export const FAVICON_ICO = Buffer.from(
  'AAABAAEAICAAAAEAIADjAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAKpJREFUeAHNwaGRwzAARNGvHbP0ohCFhqcWpRyrlvCjFrF6OawYGATKM3fevIdb4EPMqXOCVmpgF9jFnDonaqUGNoFNzKlj0EoNwkyYCbOJA34ev4y4vy6MEmbCbOKA++vCX5sYtM4LR1yfN0aIAeu8cNQ6L4wQZsJMmAkzYSbMhJkwE2bCTJgJM2E2MeD6vPFfhJkwC+xiTp0TtVIDm8CHmFPnBK3UwLd4A3qUIHCAu7x+AAAAAElFTkSuQmCC',
  'base64',
);
